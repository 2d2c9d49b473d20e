import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { terminalSafe } from './output.js';

describe('terminalSafe', () => {
  const cases: [string, string, string][] = [
    ['an ESC sequence (screen clear)', 'a\u001b[2Jb', 'a\\u001b[2Jb'],
    ['an OSC title with BEL', '\u001b]0;owned\u0007', '\\u001b]0;owned\\u0007'],
    ['an OSC 52 clipboard write', '\u001b]52;c;ZXZpbA==\u001b\\', '\\u001b]52;c;ZXZpbA==\\u001b\\'],
    ['a carriage return that would overwrite the line', 'ok\rFAKE', 'ok\\u000dFAKE'],
    ['a C1 CSI', 'x\u009b31m', 'x\\u009b31m'],
    ['DEL', 'a\u007fb', 'a\\u007fb'],
    ['a right-to-left override', 'gguf\u202egnp.exe', 'gguf\\u202egnp.exe'],
    ['an isolate', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['a line separator', 'a\u2028b', 'a\\u2028b'],
  ];
  for (const [what, raw, shown] of cases) {
    it(`writes ${what} as visible escapes`, () => assert.equal(terminalSafe(raw), shown));
  }

  it('keeps newlines, tabs, and printable text in any script as they are', () => {
    const text = 'MODEL\tSERVED BY\nllama3.2:3b\thub-a ✓ 日本語 émoji 🙂\n';
    assert.equal(terminalSafe(text), text);
  });

  it('keeps a JSON document valid JSON that reads back as the same strings', () => {
    const doc = { model: 'm\u001b[2J\u009b\u202e\u2028\u007f' };
    const shown = terminalSafe(JSON.stringify(doc, null, 2));
    assert.doesNotMatch(shown, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\u2028]/);
    assert.deepEqual(JSON.parse(shown), doc);
  });
});
