import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { HubError } from '../errors.js';
import { clientErrorBody } from './error-answer.js';

const tooLarge = new HubError('HUB_ERR_HEADERS_TOO_LARGE', 'the request headers are larger than this Hub reads (16 KiB)');
const head = (requestLine: string) => Buffer.from(`${requestLine}\r\nhost: 127.0.0.1:5002\r\nx-filler: ${'a'.repeat(64)}`, 'latin1');

describe('clientErrorBody, for an error Node raised before a request existed', () => {
  it('answers in the Ollama shape when the failed bytes begin with a request line for an Ollama route or the heartbeat', () => {
    for (const line of ['POST /api/inference/pool/api/chat HTTP/1.1', 'GET /api/inference/pool/api/tags?x=1 HTTP/1.1', 'HEAD /api/inference/pool HTTP/1.0']) {
      assert.deepEqual(clientErrorBody(head(line), tooLarge), { error: tooLarge.message, code: 'HUB_ERR_HEADERS_TOO_LARGE' }, line);
    }
  });

  it('answers in the OpenAI shape for a /v1 route', () => {
    assert.deepEqual(clientErrorBody(head('POST /api/inference/pool/v1/chat/completions HTTP/1.1'), tooLarge), {
      error: { message: tooLarge.message, type: 'invalid_request_error', code: 'HUB_ERR_HEADERS_TOO_LARGE' },
    });
  });

  it('keeps the operator shape for an operator route, for bytes that do not begin with a request line, and when Node gave none', () => {
    for (const raw of [
      head('GET /api/inference/pool/status HTTP/1.1'),
      Buffer.from('aaaa POST /api/inference/pool/api/chat HTTP/1.1\r\n'),
      undefined,
      'GET /api/inference/pool/api/tags HTTP/1.1\r\n',
    ]) {
      assert.deepEqual(clientErrorBody(raw, tooLarge), tooLarge.toBody(), String(raw).slice(0, 40));
    }
  });
});
