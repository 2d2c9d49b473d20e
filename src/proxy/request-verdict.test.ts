import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyVerdict, engineErrorMessage, VERDICT_PATTERNS, verdictStatus, type VerdictSignature } from './request-verdict.js';

const cases: readonly { name: string; body: string; signature: VerdictSignature | null }[] = [
  { name: 'Ollama: a Qwen3 template with no user turn', body: '{"error":"no user query found in messages"}', signature: 'no-user-query' },
  {
    name: 'llama-server: the same refusal in the OpenAI shape',
    body: '{"error":{"code":500,"message":"No user query found in messages.","type":"server_error"}}',
    signature: 'no-user-query',
  },
  {
    name: "vLLM: the refusal wrapped in its template error, still the request's fault",
    body: '{"error":{"message":"Error in applying chat template from request: No user query found in messages.","type":"InternalServerError","param":null,"code":500}}',
    signature: 'no-user-query',
  },
  {
    name: 'llama-server: a chat body with no messages',
    body: '{"error":{"code":500,"message":"\'messages\' is required","type":"server_error"}}',
    signature: 'missing-messages',
  },
  {
    name: 'Lemonade / llama-server: a message without content',
    body: '{"error":{"code":500,"message":"Missing \'content\' in message","type":"server_error"}}',
    signature: 'invalid-message',
  },
  {
    name: 'Ollama: a Go template that would not render',
    body: '{"error":"template: :3:10: executing \\"\\" at <.Messages>: error calling index: index out of range"}',
    signature: 'chat-template',
  },
  {
    name: 'llama-server: a Jinja template error',
    body: '{"error":{"code":500,"message":"Failed to apply chat template: Jinja exception","type":"server_error"}}',
    signature: 'chat-template',
  },
  { name: 'Ollama: a prompt over the window', body: '{"error":"the input length exceeds the context length"}', signature: 'context-length' },
  {
    name: 'llama-server: a prompt over the context size',
    body: '{"error":{"code":500,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}',
    signature: 'context-length',
  },
  {
    name: 'vLLM: a prompt over the maximum context length',
    body: '{"error":{"message":"This model\'s maximum context length is 32768 tokens. However, you requested 40000 tokens.","type":"BadRequestError","param":null,"code":400}}',
    signature: 'context-length',
  },
  {
    name: 'older vLLM error object shape',
    body: '{"object":"error","message":"Input length (40001) exceeds model\'s maximum context length (32768).","type":"BadRequestError"}',
    signature: 'context-length',
  },
  { name: 'an engine failure that is not about the request', body: '{"error":"CUDA error: out of memory"}', signature: null },
  {
    name: 'a model that failed to load',
    body: '{"error":"model failed to load, this may be due to resource limitations or an internal error"}',
    signature: null,
  },
  // Each pattern's optional parts, read without them: the engines word the same refusal more than one way.
  { name: 'no messages provided (no "were")', body: '{"error":"no messages provided"}', signature: 'missing-messages' },
  {
    name: 'a prompt that would exceed the context size (plural subject)',
    body: '{"error":"prompt tokens exceed the available context size"}',
    signature: 'context-length',
  },
  { name: 'a prompt over the context size, said without "the"', body: '{"error":"prompt exceeds available context size"}', signature: 'context-length' },
  { name: 'a prompt over the context length, said without "available"', body: '{"error":"prompt exceeds the context length"}', signature: 'context-length' },
  { name: 'an input length that exceeds, with words between', body: '{"error":"input length of 40001 tokens exceeds the limit"}', signature: 'context-length' },
  { name: 'a message missing its content, unquoted', body: '{"error":"missing content in message"}', signature: 'invalid-message' },
  { name: 'an invalid message, without "chat"', body: '{"error":"invalid message at index 2"}', signature: 'invalid-message' },
  { name: 'a content of the wrong type', body: '{"error":"expected string or list for \'content\'"}', signature: 'invalid-message' },
  { name: "plain text, not an engine's JSON shape", body: 'no user query found in messages', signature: null },
  { name: 'a bare message without the older vLLM "object": "error" marker', body: '{"message":"no user query found in messages"}', signature: null },
  { name: 'a JSON null', body: 'null', signature: null },
  { name: 'an error field that is null', body: '{"error":null}', signature: null },
  { name: 'JSON without an error field', body: '{"detail":"no user query found in messages"}', signature: null },
];

describe("classifyVerdict: each engine's wording", () => {
  for (const c of cases) it(`${c.name} → ${c.signature ?? 'no verdict'}`, () => assert.equal(classifyVerdict(Buffer.from(c.body)), c.signature));
});

describe('the patterns', () => {
  it('each names the engines whose wording it matches (a pattern needs its evidence)', () => {
    for (const p of VERDICT_PATTERNS) assert.match(p.engine, /Ollama|llama-server|vLLM|Lemonade|Qwen3/, p.signature);
  });
});

describe('verdict status and message', () => {
  it('answers 400 for every verdict but a template that would not render', () => {
    assert.equal(verdictStatus('no-user-query'), 400);
    assert.equal(verdictStatus('context-length'), 400);
    assert.equal(verdictStatus('chat-template'), 500);
  });
  it('reads no message from a body that is not JSON', () => assert.equal(engineErrorMessage(Buffer.from('<html>')), null));
  it('reads an older vLLM message only when it is text', () => {
    assert.equal(engineErrorMessage(Buffer.from('{"object":"error","message":"boom"}')), 'boom');
    assert.equal(engineErrorMessage(Buffer.from('{"object":"error","message":5}')), null);
  });
});
