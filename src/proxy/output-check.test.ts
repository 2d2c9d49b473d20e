import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProxyDialect } from '../engines/types.js';
import { isDegenerate, judgeBody, StreamJudge, type OutputFault } from './output-check.js';

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
    { name: 'a body that is not JSON is malformed output', dialect: 'ollama', body: 'oops', fault: 'malformed-output' },
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
  ];
  for (const r of rows) it(r.name, () => assert.equal(judgeBody(r.dialect, Buffer.from(r.body)), r.fault));
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
    { name: 'an Ollama last line that is null is a cut stream', dialect: 'ollama', parts: [ollamaFrame('hi'), 'null\n'], fault: 'truncated-upstream' },
    {
      name: 'an Ollama frame whose message is a number reads as no text',
      dialect: 'ollama',
      parts: ['{"model":"g","message":5,"done":false}\n', ollamaFrame('<unused1>', true)],
      fault: 'degenerate-output',
    },
  ];
  for (const r of hostile) it(`judges a hostile stream without throwing: ${r.name}`, () => assert.equal(judge(r.dialect, r.parts), r.fault));
  it('ignores SSE comment lines', () => assert.equal(judge('openai', [': keepalive 1/10\n\n', sse(chunk('hi', 'stop')), sse('[DONE]')]), null));
  it('does not judge a stream with no frames in the dialect', () => assert.equal(judge('ollama', ['not json at all\n']), null));
  it('still judges the end of a long stream whose text stays short (the head is bounded, the tail is not)', () => {
    const frames = Array.from({ length: 2_000 }, () => sse(chunk('')));
    assert.equal(judge('openai', [...frames, sse(chunk('', 'stop')), sse('[DONE]')]), null);
    assert.equal(judge('openai', frames), 'truncated-upstream');
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
});
