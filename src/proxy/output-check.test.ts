import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProxyDialect } from '../engines/types.js';
import {
  isDegenerate,
  judgeBody,
  readAnswer,
  STREAM_HEAD_BYTES,
  STREAM_LAST_LINE_MAX_BYTES,
  STREAM_TAIL_BYTES,
  StreamJudge,
  type OutputFault,
} from './output-check.js';
import { readEngineTimings } from './walk-timings.js';

const ollamaFrame = (content: string, done = false) => JSON.stringify({ model: 'g', created_at: 't', message: { role: 'assistant', content }, done }) + '\n';
const sse = (doc: unknown) => `data: ${typeof doc === 'string' ? doc : JSON.stringify(doc)}\n\n`;
const chunk = (content: string, finish: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});

describe('judgeBody (non-streamed)', () => {
  const rows: readonly { name: string; dialect: ProxyDialect; body: string; fault: OutputFault | null }[] = [
    {
      name: 'Ollama body with done: true is sound',
      dialect: 'ollama',
      body: JSON.stringify({ model: 'g', message: { content: 'hi' }, done: true }),
      fault: null,
    },
    {
      name: 'Ollama body with done: false is truncated',
      dialect: 'ollama',
      body: JSON.stringify({ model: 'g', message: { content: 'hi' }, done: false }),
      fault: 'truncated-upstream',
    },
    {
      name: 'Ollama body of nothing but placeholders is degenerate',
      dialect: 'ollama',
      body: JSON.stringify({ model: 'g', message: { content: '<unused49><unused49> <unused12>' }, done: true }),
      fault: 'degenerate-output',
    },
    {
      name: 'generate body reads the response field',
      dialect: 'ollama',
      body: JSON.stringify({ model: 'g', response: '<unused0>', done: true }),
      fault: 'degenerate-output',
    },
    {
      name: 'OpenAI body with a finish_reason is sound',
      dialect: 'openai',
      body: JSON.stringify({ choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }] }),
      fault: null,
    },
    {
      name: 'OpenAI body without a finish_reason is truncated',
      dialect: 'openai',
      body: JSON.stringify({ choices: [{ message: { content: 'hi' }, finish_reason: null }] }),
      fault: 'truncated-upstream',
    },
    {
      name: 'reasoning and answer are read together: real reasoning makes it sound',
      dialect: 'openai',
      body: JSON.stringify({ choices: [{ message: { reasoning: 'think', content: '<unused1>' }, finish_reason: 'stop' }] }),
      fault: null,
    },
    { name: 'a body not in the dialect is not judged', dialect: 'openai', body: JSON.stringify({ hello: 'world' }), fault: null },
    // Issue 9 #20: a 200 nobody can read as an answer was never served.
    { name: 'a body that is not JSON (text/plain "OK") is malformed output', dialect: 'ollama', body: 'OK', fault: 'malformed-output' },
    { name: 'an empty 200 is malformed output', dialect: 'openai', body: '', fault: 'malformed-output' },
    { name: 'an HTML page is malformed output', dialect: 'openai', body: '<html><body>Sign in to the network</body></html>', fault: 'malformed-output' },
    // An engine's body is untrusted: wrong shapes are read past, never thrown on (issue 9, defect 2's class).
    { name: 'a null choice is skipped: with no readable choice the body is not judged', dialect: 'openai', body: '{"choices":[null]}', fault: null },
    {
      name: 'a null choice before a readable one: the readable one is judged',
      dialect: 'openai',
      body: '{"choices":[null,{"message":{"content":"hi"},"finish_reason":null}]}',
      fault: 'truncated-upstream',
    },
    {
      name: 'choices that are numbers, strings and arrays are skipped',
      dialect: 'openai',
      body: '{"choices":[1,"x",[],{"message":{"content":"<unused3>"},"finish_reason":"stop"}]}',
      fault: 'degenerate-output',
    },
    {
      name: 'a null message and a null delta read as no text',
      dialect: 'openai',
      body: '{"choices":[{"message":null,"delta":null,"finish_reason":"stop"}]}',
      fault: null,
    },
    { name: 'an Ollama message that is null reads as no text', dialect: 'ollama', body: '{"model":"g","message":null,"done":true}', fault: null },
    { name: 'a JSON array is not judged', dialect: 'openai', body: '[null]', fault: null },
    // Only a body recognisably in the dialect is judged: Ollama's carries both model and done.
    { name: 'an Ollama-looking body without a model is not judged', dialect: 'ollama', body: '{"done":false}', fault: null },
    { name: 'an Ollama-looking body without done is not judged', dialect: 'ollama', body: '{"model":"g","message":{"content":"hi"}}', fault: null },
    {
      name: 'an OpenAI choice with no finish_reason at all is truncated',
      dialect: 'openai',
      body: JSON.stringify({ choices: [{ message: { content: 'hi' } }] }),
      fault: 'truncated-upstream',
    },
    {
      name: "Ollama's thinking is generated text too: real thinking makes it sound",
      dialect: 'ollama',
      body: JSON.stringify({ model: 'g', message: { thinking: 'let me see', content: '<unused1>' }, done: true }),
      fault: null,
    },
  ];
  for (const r of rows) it(r.name, () => assert.equal(judgeBody(r.dialect, Buffer.from(r.body)), r.fault));

  it('says whether a body was judged: JSON not in the dialect was not, so it cannot be a clean answer', () => {
    assert.equal(readAnswer('ollama', Buffer.from('OK')).judged, true);
    assert.equal(readAnswer('openai', Buffer.from(JSON.stringify({ hello: 'world' }))).judged, false);
    assert.equal(readAnswer('ollama', Buffer.from(JSON.stringify({ model: 'g', message: { content: 'hi' }, done: true }))).judged, true);
    assert.equal(readAnswer('openai', Buffer.from(JSON.stringify({ choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }] }))).judged, true);
  });
});

describe('StreamJudge', () => {
  const judge = (dialect: ProxyDialect, parts: readonly string[]) => {
    const j = new StreamJudge(dialect);
    for (const p of parts) j.push(Buffer.from(p));
    return j.finish();
  };

  it('accepts an Ollama stream ending on done: true, even when frames are split across chunks', () => {
    const text = ollamaFrame('Hel') + ollamaFrame('lo') + ollamaFrame('', true);
    assert.equal(judge('ollama', [text.slice(0, 17), text.slice(17, 60), text.slice(60)]), null);
  });
  it('finds an Ollama stream cut before its done frame', () => assert.equal(judge('ollama', [ollamaFrame('Hel'), ollamaFrame('lo')]), 'truncated-upstream'));
  it('finds an Ollama stream that ended on an error line', () =>
    assert.equal(judge('ollama', [ollamaFrame('Hel'), '{"error":"runner died"}\n']), 'truncated-upstream'));
  it('accepts an OpenAI stream ending with [DONE]', () => assert.equal(judge('openai', [sse(chunk('hi')), sse(chunk('', 'stop')), sse('[DONE]')]), null));
  it('accepts an OpenAI stream with a finish_reason and no [DONE]', () => assert.equal(judge('openai', [sse(chunk('hi')), sse(chunk('', 'stop'))]), null));
  it('finds an OpenAI stream with neither', () => assert.equal(judge('openai', [sse(chunk('hi'))]), 'truncated-upstream'));
  it('finds an error frame even when vLLM sends [DONE] after it', () =>
    assert.equal(judge('openai', [sse(chunk('hi')), sse({ error: { message: 'boom', code: 500 } }), sse('[DONE]')]), 'truncated-upstream'));
  it('finds a stream of nothing but placeholders', () =>
    assert.equal(judge('ollama', [ollamaFrame('<unused49>'), ollamaFrame('<unused49>'), ollamaFrame('', true)]), 'degenerate-output'));
  const hostile: readonly { name: string; dialect: ProxyDialect; parts: readonly string[]; fault: OutputFault | null }[] = [
    { name: 'a frame whose only choice is null, and no end, is truncated', dialect: 'openai', parts: [sse('{"choices":[null]}')], fault: 'truncated-upstream' },
    {
      name: 'a null choice beside a finish_reason still ends the stream',
      dialect: 'openai',
      parts: [sse(chunk('hi')), sse('{"choices":[null,{"finish_reason":"stop"}]}')],
      fault: null,
    },
    {
      name: 'placeholders beside a null choice are still degenerate',
      dialect: 'openai',
      parts: [sse('{"choices":[{"delta":{"content":"<unused49>"}},null]}'), sse(chunk('', 'stop'))],
      fault: 'degenerate-output',
    },
    {
      name: 'frames that are a bare JSON string or number read as no text',
      dialect: 'ollama',
      parts: ['"<unused1> hello"\n', '42\n', ollamaFrame('<unused1>'), ollamaFrame('', true)],
      fault: 'degenerate-output',
    },
    { name: 'an Ollama last line that is a bare number is a cut stream', dialect: 'ollama', parts: [ollamaFrame('hi'), '42\n'], fault: 'truncated-upstream' },
    {
      name: 'OpenAI events that are bare JSON values end nothing',
      dialect: 'openai',
      parts: [sse(chunk('hi')), sse('42'), sse('null')],
      fault: 'truncated-upstream',
    },
    {
      name: 'indented data: lines are read as frames, like the tail',
      dialect: 'openai',
      parts: ['  ' + sse(chunk('<unused1>')), sse(chunk('', 'stop'))],
      fault: 'degenerate-output',
    },
    { name: 'an Ollama last line that is null is a cut stream', dialect: 'ollama', parts: [ollamaFrame('hi'), 'null\n'], fault: 'truncated-upstream' },
    {
      name: 'an Ollama frame whose message is a number reads as no text',
      dialect: 'ollama',
      parts: ['{"model":"g","message":5,"done":false}\n', ollamaFrame('<unused1>', true)],
      fault: 'degenerate-output',
    },
  ];
  for (const r of hostile) it(`judges a hostile stream without throwing: ${r.name}`, () => assert.equal(judge(r.dialect, r.parts), r.fault));
  it('accepts an OpenAI stream that ends with [DONE] though its last chunks carry no finish_reason', () =>
    assert.equal(judge('openai', [sse(chunk('hi')), sse('[DONE]')]), null));
  it('finds an Ollama stream whose last line is an error, even one that also says done', () =>
    assert.equal(judge('ollama', [ollamaFrame('Hel'), '{"error":"runner died","done":true}\n']), 'truncated-upstream'));
  it('reads past a first placeholder: real words after it make the stream an answer', () =>
    assert.equal(judge('ollama', [ollamaFrame('<unused49>'), ollamaFrame(' and here is the real answer'), ollamaFrame('', true)]), null));
  it('reads past a whitespace-only line after an Ollama done frame', () =>
    assert.equal(judge('ollama', [ollamaFrame('hi'), ollamaFrame('', true), '   \n']), null));
  it('counts a finish_reason only among the last four events when no [DONE] came', () => {
    const usage = sse({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: { total_tokens: 3 } });
    assert.equal(judge('openai', [sse(chunk('hi')), sse(chunk('', 'stop')), usage, usage, usage]), null, 'three events after it');
    assert.equal(judge('openai', [sse(chunk('hi')), sse(chunk('', 'stop')), usage, usage, usage, usage]), 'truncated-upstream', 'four after it');
  });
  it('reads an OpenAI stream with CRLF line endings', () =>
    assert.equal(judge('openai', [sse(chunk('hi')).replaceAll('\n', '\r\n'), sse('[DONE]').replaceAll('\n', '\r\n')]), null));
  it('judges placeholders on the first 16 KB only: text after it is not read', () => {
    // One chunk of exactly STREAM_HEAD_BYTES: a placeholder, then empty frames padded to the byte.
    const first = ollamaFrame('<unused49>');
    const empty = ollamaFrame('');
    let head = first;
    while (head.length + 2 * empty.length <= STREAM_HEAD_BYTES) head += empty;
    const padded = (pad: number) =>
      JSON.stringify({ model: 'g', created_at: 't'.repeat(pad), message: { role: 'assistant', content: '' }, done: false }) + '\n';
    head += padded(STREAM_HEAD_BYTES - head.length - padded(0).length);
    assert.equal(Buffer.byteLength(head), STREAM_HEAD_BYTES);
    const later = ollamaFrame(' and here is the real answer');
    assert.equal(judge('ollama', [head, later, ollamaFrame('', true)]), 'degenerate-output');
    // The same text with the answer inside the first 16 KB is an answer.
    assert.equal(judge('ollama', [first, later, ollamaFrame('', true)]), null);
  });
  // The tail is the head's own last bytes while the stream fits in the head, and its own copy
  // after: the bound holds in both, and across the chunk that moves it from one to the other.
  const filler = sse(chunk(''));
  const fillerUpTo = (bytes: number) => Array.from({ length: Math.floor(bytes / filler.length) }, () => filler);
  const before = [
    { name: 'a stream that fits in the head', parts: [] },
    { name: 'a stream past the head already', parts: fillerUpTo(STREAM_HEAD_BYTES + filler.length) },
    { name: 'the head’s last chunk, when the next one outgrows it', parts: fillerUpTo(STREAM_HEAD_BYTES - 200) },
  ];
  for (const b of before) {
    it(`looks for an error frame in the last 4 KB only (an engine ends its stream on one): ${b.name}`, () => {
      const errorFrame = sse({ error: { message: 'boom', code: 500 } });
      let tail = '';
      while (tail.length + filler.length <= STREAM_TAIL_BYTES - sse('[DONE]').length) tail += filler;
      tail += ':'.repeat(STREAM_TAIL_BYTES - sse('[DONE]').length - tail.length - 1) + '\n' + sse('[DONE]');
      assert.equal(Buffer.byteLength(tail), STREAM_TAIL_BYTES);
      assert.equal(judge('openai', [sse(chunk('hi')), ...b.parts, errorFrame, tail]), null, '4 KB after the error frame: out of the tail');
      assert.equal(judge('openai', [sse(chunk('hi')), ...b.parts, errorFrame, tail.slice(1)]), 'truncated-upstream', 'one byte less: still in it');
    });
  }
  it('ignores SSE comment lines', () => assert.equal(judge('openai', [': keepalive 1/10\n\n', sse(chunk('hi', 'stop')), sse('[DONE]')]), null));
  it('judges a stream whose first byte is a blank line', () => assert.equal(judge('ollama', ['\n', ollamaFrame('Hel')]), 'truncated-upstream'));
  it('does not judge a stream with no frames in the dialect', () => assert.equal(judge('ollama', ['not json at all\n']), null));
  it('says whether it judged the stream: one with no frame in the dialect is no clean answer', () => {
    const none = new StreamJudge('ollama');
    none.push(Buffer.from('not json at all\n'));
    assert.equal(none.judged, false);
    const one = new StreamJudge('ollama');
    one.push(Buffer.from('{"model":"g","message":{"content":"hi"},"done":true}\n'));
    assert.equal(one.judged, true);
  });
  it('judges nothing and reads no frames when not a byte came', () => {
    for (const dialect of ['ollama', 'openai'] as const) {
      const j = new StreamJudge(dialect);
      assert.equal(j.finish(), null);
      assert.deepEqual(j.lastFrames(), []);
    }
  });
  it('still judges the end of a long stream whose text stays short (the head is bounded, the tail is not)', () => {
    const frames = Array.from({ length: 2_000 }, () => sse(chunk('')));
    assert.equal(judge('openai', [...frames, sse(chunk('', 'stop')), sse('[DONE]')]), null);
    assert.equal(judge('openai', frames), 'truncated-upstream');
  });
  it('judges the bytes as they passed, though the buffers they came in are reused afterwards', () => {
    // The judge copies what it keeps rather than holding the relayed chunks alive for the stream's life.
    const j = new StreamJudge('openai');
    const chunks = [sse(chunk('<unused1>')), sse(chunk('', 'stop')), sse('[DONE]')].map((text) => Buffer.from(text));
    for (const c of chunks) {
      j.push(c);
      c.fill(0x20);
    }
    assert.equal(j.finish(), 'degenerate-output');
    assert.deepEqual(
      (j.lastFrames() as { choices: { finish_reason: string | null }[] }[]).map((f) => f.choices[0]!.finish_reason),
      [null, 'stop'],
    );
  });
  // The head is read frame by frame and the placeholder check decided as early as the text
  // allows: whatever the frames, the verdict is the one isDegenerate gives their text whole.
  const texts = [
    '<unused49>'.repeat(30),
    ' \n <unused1> <unused22>',
    '<unused1><abc>',
    '<unused1>'.repeat(28) + '<abcdefg and more',
    '<unusedX> <unused1>',
    'word <unused1>',
    ' '.repeat(300) + '<unused1>',
    ' '.repeat(250) + '<unused1>',
    '',
  ];
  for (const text of texts) {
    for (const size of [1, 3, 10]) {
      it(`decides placeholders as the whole text would, ${size} characters a frame: ${JSON.stringify(text.slice(0, 40))}`, () => {
        const frames = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => ollamaFrame(text.slice(i * size, (i + 1) * size)));
        const expected = isDegenerate(text) ? 'degenerate-output' : null;
        assert.equal(judge('ollama', [...frames, ollamaFrame('', true)]), expected);
      });
    }
  }
  it('reads a character split between two chunks as one', () => {
    // U+3000, an ideographic space, is whitespace between placeholders; its three bytes misread would be text.
    const bytes = Buffer.from(ollamaFrame('<unused1>') + ollamaFrame('\u3000<unused1>') + ollamaFrame('', true));
    const at = bytes.indexOf(Buffer.from('\u3000')) + 1;
    const j = new StreamJudge('ollama');
    j.push(bytes.subarray(0, at));
    j.push(bytes.subarray(at));
    assert.equal(j.finish(), 'degenerate-output');
  });
  it('judges alike however the stream is cut into chunks', () => {
    const streams: readonly [ProxyDialect, string][] = [
      ['ollama', ollamaFrame('<unused1>') + ollamaFrame(' <unused2>') + ollamaFrame('', true)],
      ['ollama', ollamaFrame('hi') + ollamaFrame('')],
      ['openai', sse(chunk('')) + sse(chunk('<unused7>')) + sse(chunk('', 'stop')) + sse('[DONE]')],
      ['openai', ': hello\n\n' + sse(chunk('real')) + sse(chunk(' text', 'stop'))],
    ];
    for (const [dialect, text] of streams) {
      const bytes = Buffer.from(text);
      const whole = judge(dialect, [text]);
      for (let at = 1; at < bytes.length; at += 1) {
        const j = new StreamJudge(dialect);
        j.push(bytes.subarray(0, at));
        j.push(bytes.subarray(at));
        assert.equal(j.finish(), whole, `cut at byte ${at} of ${JSON.stringify(text)}`);
      }
    }
  });
  it('finds placeholders at the start of a long stream', () => {
    const frames = [...Array.from({ length: 40 }, () => ollamaFrame('<unused49>')), ...Array.from({ length: 500 }, () => ollamaFrame('word '))];
    assert.equal(judge('ollama', [...frames, ollamaFrame('', true)]), 'degenerate-output');
  });
});

describe('isDegenerate', () => {
  it('reads only the first 256 characters', () => {
    assert.equal(isDegenerate('<unused1>'.repeat(40) + ' a real word'), true);
    assert.equal(isDegenerate('<unused1> hello'), false);
    assert.equal(isDegenerate(''), false);
  });
  const rows: readonly { name: string; text: string; degenerate: boolean }[] = [
    { name: 'placeholders with spaces between and around', text: ' <unused49><unused49> <unused12> ', degenerate: true },
    { name: 'text before a placeholder is an answer', text: 'hello <unused1>', degenerate: false },
    { name: 'whitespace alone is not degenerate (there is no placeholder)', text: '   \n ', degenerate: false },
    { name: 'a placeholder with a many-digit number', text: '<unused12345>', degenerate: true },
    { name: 'an angle-bracket token that is not a placeholder', text: '<unusedX>', degenerate: false },
    // The cut at 256 characters lands inside a placeholder: the fragment is not text.
    { name: 'a cut that leaves "<unused1" (digits included) at the end', text: '     ' + '<unused1>'.repeat(40), degenerate: true },
    { name: 'a cut that leaves "<unu" at the end', text: '<unused1>'.repeat(40), degenerate: true },
    { name: 'a cut that leaves "<" at the end', text: '    ' + '<unused1>'.repeat(40), degenerate: true },
  ];
  for (const r of rows) it(`${r.name}: ${r.degenerate ? 'degenerate' : 'not degenerate'}`, () => assert.equal(isDegenerate(r.text), r.degenerate));

  // A model can be asked to echo this. The pattern this replaced tried every way to split the
  // spaces between placeholders before failing: 20 of them took 117 s, and 22 fit in 256
  // characters, so with it this call does not return (and holds the event loop) for hours.
  it('reads placeholders with two spaces between them and then a letter as not degenerate', () => {
    assert.equal(isDegenerate('<unused1>  '.repeat(22) + 'x'), false);
    assert.equal(isDegenerate('<unused1>  '.repeat(22)), true);
  });
});

describe('StreamJudge.lastFrames (where the engine timings are read)', () => {
  it('gives the last four frames, parsed, skipping lines that are not frames', () => {
    const j = new StreamJudge('ollama');
    for (let i = 0; i < 6; i += 1) j.push(Buffer.from(ollamaFrame(`w${i}`)));
    j.push(Buffer.from('not a frame\n'));
    j.push(Buffer.from(ollamaFrame('', true).trimEnd()));
    const frames = j.lastFrames() as { message: { content: string }; done: boolean }[];
    assert.deepEqual(
      frames.map((f) => f.message.content),
      ['w3', 'w4', 'w5', ''],
    );
    assert.equal(frames[3]!.done, true, 'the final frame counts though no newline followed it');
  });
  it('reads OpenAI events from their data: lines and skips [DONE]', () => {
    const j = new StreamJudge('openai');
    j.push(Buffer.from(sse(chunk('a')) + sse(chunk('b', 'stop')) + sse('[DONE]')));
    assert.deepEqual(
      (j.lastFrames() as { choices: { delta: { content: string } }[] }[]).map((f) => f.choices[0]!.delta.content),
      ['a', 'b'],
    );
  });
});

describe("StreamJudge: a last line longer than the tail (Ollama generate's final frame carries the context)", () => {
  const generateFrame = (response: string) => JSON.stringify({ model: 'g', created_at: 't', response, done: false }) + '\n';
  /** A final frame whose context holds `tokens` ints, as /api/generate sends after a long prompt. */
  const generateFinal = (tokens: number) =>
    JSON.stringify({
      model: 'g',
      created_at: 't',
      response: '',
      done: true,
      done_reason: 'stop',
      context: Array.from({ length: tokens }, (_, i) => 100_000 + i),
      prompt_eval_count: tokens,
      prompt_eval_duration: 9_000_000_000,
      eval_count: 20,
      eval_duration: 1_000_000_000,
    }) + '\n';
  const words = Array.from({ length: 20 }, () => generateFrame('word '));
  /** Feeds the stream to a judge in pieces of `size` bytes, as the socket reads it. */
  const fed = (dialect: ProxyDialect, text: string, size: number) => {
    const bytes = Buffer.from(text);
    const j = new StreamJudge(dialect);
    for (let at = 0; at < bytes.length; at += size) j.push(bytes.subarray(at, at + size));
    return j;
  };

  for (const size of [1500, STREAM_TAIL_BYTES, STREAM_TAIL_BYTES + 1, 16 * 1024, 64 * 1024, 1024 * 1024])
    it(`keeps the whole final frame of a generate stream read ${size} bytes at a time: judged sound, its timings read`, () => {
      const final = generateFinal(8000);
      assert.ok(Buffer.byteLength(final) > 50_000);
      const j = fed('ollama', words.join('') + final, size);
      assert.equal(j.finish(), null);
      assert.equal(j.judged, true);
      assert.deepEqual(readEngineTimings(j.lastFrames()), { promptTokens: 8000, cachedTokens: null, promptMs: 9000, completionTokens: 20, decodeMs: 1000 });
    });
  it('still finds a long final frame cut before its end', () => {
    const final = generateFinal(8000);
    const j = fed('ollama', words.join('') + final.slice(0, final.length / 2), 16 * 1024);
    assert.equal(j.finish(), 'truncated-upstream');
    assert.equal(readEngineTimings(j.lastFrames()), null);
  });
  it('keeps a long line whole across whitespace-only chunks after it', () => {
    const j = fed('ollama', words.join('') + generateFinal(8000), 16 * 1024);
    j.push(Buffer.from('\n'));
    j.push(Buffer.from('  \r\n'));
    assert.equal(j.finish(), null);
  });
  it('lets go of a long line once another follows it: only the last line is kept whole', () => {
    // A long error frame, then a sound end: the error is out of the tail again, so the stream is sound.
    const longError = 'data: ' + JSON.stringify({ error: { message: 'x'.repeat(60_000), code: 500 } }) + '\n\n';
    let after = '';
    while (Buffer.byteLength(after) < STREAM_TAIL_BYTES) after += sse(chunk(''));
    const text = sse(chunk('hi')) + longError + after + sse(chunk('', 'stop')) + sse('[DONE]');
    assert.equal(fed('openai', text, 16 * 1024).finish(), null);
    assert.equal(fed('openai', sse(chunk('hi')) + longError, 16 * 1024).finish(), 'truncated-upstream', 'while it is the last line it is kept');
  });
  for (const size of [1500, STREAM_TAIL_BYTES, 16 * 1024])
    it(`finds an error frame longer than the tail when [DONE] follows it, read ${size} bytes at a time`, () => {
      const longError = 'data: ' + JSON.stringify({ error: { message: 'x'.repeat(5 * STREAM_TAIL_BYTES), code: 500 } }) + '\n\n';
      assert.equal(fed('openai', sse(chunk('hi')) + longError + sse('[DONE]'), size).finish(), 'truncated-upstream');
    });
  describe('an error frame longer than the tail, then a [DONE] split between reads', () => {
    /** The stream read in pieces ending at `cuts` (offsets into it, ascending). */
    const cutAt = (dialect: ProxyDialect, text: string, cuts: readonly number[]) => {
      const bytes = Buffer.from(text);
      const j = new StreamJudge(dialect);
      let from = 0;
      for (const to of [...cuts, bytes.length]) {
        if (to > from) j.push(bytes.subarray(from, to));
        from = to;
      }
      return j;
    };
    const first = sse(chunk('hi'));
    const longError = 'data: ' + JSON.stringify({ error: { message: 'x'.repeat(2 * STREAM_TAIL_BYTES), code: 500 } }) + '\n\n';
    /** Every cut within 40 bytes of the frame's ends or of STREAM_TAIL_BYTES into it, and every 97th byte between. */
    const frameCuts = Array.from({ length: longError.length + 1 }, (_, i) => i).filter(
      (i) => i < 40 || longError.length - i < 40 || Math.abs(i - STREAM_TAIL_BYTES) < 40 || i % 97 === 0,
    );
    for (const [name, done] of [
      ['data: [DONE]', 'data: [DONE]\n\n'],
      ['data:[DONE]', 'data:[DONE]\n\n'],
      ['data: [DONE] with CRLF', 'data: [DONE]\r\n\r\n'],
    ] as const) {
      it(`finds it at every cut of ${name} and of the frame before it`, () => {
        const missed: string[] = [];
        for (const frameCut of frameCuts)
          for (let doneCut = 1; doneCut < done.length; doneCut++) {
            const at = first.length + frameCut;
            const doneAt = first.length + longError.length;
            if (cutAt('openai', first + longError + done, [at, doneAt + doneCut]).finish() !== 'truncated-upstream') missed.push(`${frameCut}/${doneCut}`);
          }
        assert.deepEqual(missed, [], 'frame cut / [DONE] cut read as sound');
      });
    }
    it('finds it when [DONE] comes a byte at a time', () => {
      const text = first + longError + sse('[DONE]');
      const cuts = Array.from({ length: sse('[DONE]').length }, (_, i) => first.length + longError.length + i);
      assert.equal(cutAt('openai', text, [first.length + 1, ...cuts]).finish(), 'truncated-upstream');
    });
  });
  it('judges a stream whose [DONE] follows a line too long to keep', () => {
    const tooLong = ': ' + 'x'.repeat(STREAM_LAST_LINE_MAX_BYTES + 1) + '\n\n';
    const j = fed('openai', sse(chunk('hi')) + tooLong + sse('[DONE]'), 64 * 1024);
    assert.equal(j.finish(), null);
    assert.equal(j.judged, true);
  });
  it(`leaves a stream unjudged when its last line is over ${STREAM_LAST_LINE_MAX_BYTES} bytes: no fault, no clean answer, no timings`, () => {
    const final = generateFinal(200_000);
    assert.ok(Buffer.byteLength(final) > STREAM_LAST_LINE_MAX_BYTES);
    const j = fed('ollama', words.join('') + final, 64 * 1024);
    assert.equal(j.finish(), null);
    assert.equal(j.judged, false);
    assert.equal(readEngineTimings(j.lastFrames()), null);
  });
  it('still finds placeholders in a stream whose last line was too long to keep', () => {
    const j = fed('ollama', generateFrame('<unused49>') + generateFrame('<unused49>') + generateFinal(200_000), 64 * 1024);
    assert.equal(j.finish(), 'degenerate-output');
  });
  it('judges a sound stream after a line too long to keep', () => {
    const tooLong = ': ' + 'x'.repeat(STREAM_LAST_LINE_MAX_BYTES + 1) + '\n\n';
    const j = fed('openai', sse(chunk('hi')) + tooLong + sse(chunk('', 'stop')) + sse('[DONE]'), 64 * 1024);
    assert.equal(j.finish(), null);
    assert.equal(j.judged, true);
  });
});
