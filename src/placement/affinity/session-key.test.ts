import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promptHead, SESSION_HEADER, sessionKey, validSessionHeader } from './session-key.js';

const SYSTEM = { role: 'system', content: 'You are an agent. '.repeat(6_000) };
const chat = (first: string, ...later: string[]) => ({
  messages: [SYSTEM, { role: 'user', content: first }, ...later.map((content) => ({ role: 'assistant', content }))],
});

describe('validSessionHeader', () => {
  it('reads X-Hub-Pool-Session (lower-cased, as Node names request headers)', () => assert.equal(SESSION_HEADER, 'x-hub-pool-session'));

  const rows: readonly { value: string | string[] | undefined; ok: boolean }[] = [
    { value: 'chat-42', ok: true },
    { value: 'run:7/step@a+b=c.d_e', ok: true },
    { value: 'a'.repeat(128), ok: true },
    { value: 'a'.repeat(129), ok: false },
    { value: '-starts-with-dash', ok: false },
    { value: 'has space', ok: false },
    { value: '', ok: false },
    { value: ['a', 'b'], ok: false },
    { value: undefined, ok: false },
  ];
  for (const r of rows)
    it(`${JSON.stringify(r.value)?.slice(0, 40)} is ${r.ok ? 'kept' : 'ignored'}`, () => assert.equal(validSessionHeader(r.value) !== null, r.ok));
});

describe('sessionKey', () => {
  it('names one session across its calls however the conversation grows', () => {
    assert.equal(sessionKey('m', null, chat('task A'))!.key, sessionKey('m', null, chat('task A', 'answer', 'more'))!.key);
  });
  it('tells apart sessions that share a system prompt longer than 4 KB (the core-2 herding, 2026-09-21)', () => {
    assert.notEqual(sessionKey('m', null, chat('task A'))!.key, sessionKey('m', null, chat('task B'))!.key);
  });
  it('includes the model in both forms', () => {
    assert.notEqual(sessionKey('a', null, chat('x'))!.key, sessionKey('b', null, chat('x'))!.key);
    assert.notEqual(sessionKey('a', 'run-1', {})!.key, sessionKey('b', 'run-1', {})!.key);
  });
  it('a header names the session whatever the prompt says, and says so', () => {
    const a = sessionKey('m', 'run-1', chat('task A'))!;
    assert.deepEqual([a.source, a.key], ['header', sessionKey('m', 'run-1', chat('task B'))!.key]);
    assert.equal(sessionKey('m', null, chat('task A'))!.source, 'hashed');
  });
  it('digests a completion or generate body whole (system and prompt)', () => {
    assert.notEqual(sessionKey('m', null, { prompt: 'p', system: 's1' })!.key, sessionKey('m', null, { prompt: 'p', system: 's2' })!.key);
    assert.notEqual(sessionKey('m', null, { prompt: 'p1' })!.key, sessionKey('m', null, { prompt: 'p2' })!.key);
    assert.notEqual(sessionKey('m', null, { system: 's1' })!.key, sessionKey('m', null, { system: 's2' })!.key);
  });
  it('a body with no head gets no key rather than one shared empty key', () => {
    assert.equal(sessionKey('m', null, { messages: [] }), null);
    assert.equal(sessionKey('m', null, {}), null);
    assert.equal(promptHead({ messages: [] }), null);
    assert.equal(promptHead({}), null);
  });
  it('the head stops after the first message that follows the system messages', () => {
    assert.equal(
      promptHead({
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'u' },
          { role: 'assistant', content: 'a' },
        ],
      }),
      JSON.stringify([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ]),
    );
  });
  it('keeps the model and the session id apart: model m1 with session x is not model m with session 1x', () => {
    assert.notEqual(sessionKey('m1', 'x', {})!.key, sessionKey('m', '1x', {})!.key);
    assert.notEqual(sessionKey('m1', null, { prompt: 'x' })!.key, sessionKey('m', null, { prompt: '1x' })!.key);
  });
  it('a malformed message (null) is not a system message: the head is that first message alone', () => {
    assert.equal(promptHead({ messages: [null, { role: 'user', content: 'u' }] }), JSON.stringify([null]));
  });
  it('the key is a hex digest, never the session id or any prompt text', () => {
    const k = sessionKey('m', 'run-1', {})!.key;
    assert.match(k, /^[0-9a-f]{64}$/);
  });
});

describe('sessionKey names the sessions JSON.stringify of the head names (the key text is not JSON)', () => {
  // Each pair is two request bodies as an app sends them; the keys must be equal exactly when the heads' JSON texts are.
  const pairs: readonly { name: string; a: string; b: string }[] = [
    { name: 'the same head', a: '{"messages":[{"role":"user","content":"hi"}]}', b: '{"messages":[{"role":"user","content":"hi"}]}' },
    {
      name: 'the same head written with other whitespace and escapes',
      a: '{"messages":[{"role":"user","content":"h\\u0069"}]}',
      b: '{ "messages" : [ { "role":"user", "content":"hi" } ] }',
    },
    { name: 'keys in another order', a: '{"messages":[{"role":"user","content":"hi"}]}', b: '{"messages":[{"content":"hi","role":"user"}]}' },
    { name: 'a number against the same digits as a string', a: '{"prompt":1}', b: '{"prompt":"1"}' },
    { name: 'one number written two ways', a: '{"prompt":1e21}', b: '{"prompt":1000000000000000000000}' },
    { name: 'true against "true"', a: '{"prompt":true}', b: '{"prompt":"true"}' },
    { name: 'null against "null"', a: '{"system":null,"prompt":"p"}', b: '{"system":"null","prompt":"p"}' },
    { name: 'a lone surrogate against U+FFFD (one character in UTF-8)', a: '{"prompt":"\\ud800"}', b: '{"prompt":"\\ufffd"}' },
    { name: 'the same lone surrogate', a: '{"prompt":"x\\udc00y"}', b: '{"prompt":"x\\udc00y"}' },
    {
      name: 'text moved from one field to the next',
      a: '{"messages":[{"role":"user","content":"ab","name":"c"}]}',
      b: '{"messages":[{"role":"user","content":"a","name":"bc"}]}',
    },
    { name: 'a string that spells the key text of two fields', a: '{"system":"s1:a","prompt":"b"}', b: '{"system":"s1:as1:b","prompt":null}' },
    {
      name: 'content parts against the same text',
      a: '{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}',
      b: '{"messages":[{"role":"user","content":"hi"}]}',
    },
    {
      name: 'the same content parts',
      a: '{"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:x"}}]}]}',
      b: '{"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:x"}}]}]}',
    },
    { name: 'an empty array against an empty object', a: '{"messages":[{"role":"user","content":[]}]}', b: '{"messages":[{"role":"user","content":{}}]}' },
    { name: 'one nested array against two', a: '{"prompt":[["a"],"b"]}', b: '{"prompt":[["a","b"]]}' },
    { name: 'non-ASCII text (UTF-8 longer than its length in characters)', a: '{"prompt":"é€😀"}', b: '{"prompt":"é€😀"}' },
    {
      name: 'a key spelled __proto__ is part of the head',
      a: '{"messages":[{"role":"user","content":"hi","__proto__":1}]}',
      b: '{"messages":[{"role":"user","content":"hi"}]}',
    },
    // Each value type's tag in the key text, moved past a string: a type written as nothing would read the same both ways.
    { name: 'null before a string against after it', a: '{"prompt":[null,"a"]}', b: '{"prompt":["a",null]}' },
    { name: 'true before a string against after it', a: '{"prompt":[true,"a"]}', b: '{"prompt":["a",true]}' },
    { name: 'false before a string against after it', a: '{"prompt":[false,"a"]}', b: '{"prompt":["a",false]}' },
    { name: 'a number before a string against after it', a: '{"prompt":[1,"a"]}', b: '{"prompt":["a",1]}' },
    { name: 'two different numbers', a: '{"prompt":1}', b: '{"prompt":2}' },
    { name: 'an empty object before a number against after it', a: '{"prompt":[{},1]}', b: '{"prompt":[1,{}]}' },
    { name: 'two different lone surrogates', a: '{"prompt":"\\ud800"}', b: '{"prompt":"\\udc00"}' },
    { name: 'integer-like keys, which both orders put first', a: '{"messages":[{"b":1,"1":2}]}', b: '{"messages":[{"1":2,"b":1}]}' },
  ];
  for (const p of pairs) {
    it(p.name, () => {
      const [a, b] = [JSON.parse(p.a) as Record<string, unknown>, JSON.parse(p.b) as Record<string, unknown>];
      const sameJson = promptHead(a) === promptHead(b);
      assert.equal(sessionKey('m', null, a)!.key === sessionKey('m', null, b)!.key, sameJson);
    });
  }
  it('the pairs above include both verdicts, and the lone surrogate pair is one JSON tells apart', () => {
    const verdicts = pairs.map((p) => promptHead(JSON.parse(p.a) as Record<string, unknown>) === promptHead(JSON.parse(p.b) as Record<string, unknown>));
    assert.ok(verdicts.includes(true) && verdicts.includes(false));
    assert.notEqual(promptHead({ prompt: '\ud800' }), promptHead({ prompt: '\ufffd' }));
  });
});
