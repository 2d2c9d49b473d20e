import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLogLine } from '../../logs/log-record.js';
import { renderLogLine } from './log-line.js';

describe('a log line on a terminal', () => {
  it('prints a message with newlines and tabs in it as one line, with them escaped', () => {
    // What a refused pairing logs when the peer's reason carries a forged line of its own.
    const stored = JSON.stringify({
      level: 40,
      time: '2026-12-01T17:59:00.000Z',
      msg: 'Peer declined pairing request (403): hub-x declined the pairing request: no.\n\nApproved hub-x\tok',
      peer: 'hub-x.tail0.ts.net',
    });
    const shown = renderLogLine(parseLogLine(stored));
    assert.equal(shown.split('\n').length, 1, shown);
    assert.equal(
      shown,
      '2026-12-01 17:59:00Z  WARN   Peer declined pairing request (403): hub-x declined the pairing request: no.\\n\\nApproved hub-x\\tok  peer=hub-x.tail0.ts.net',
    );
  });
});
