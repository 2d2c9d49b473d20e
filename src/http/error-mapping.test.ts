import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { toHubError } from './error-mapping.js';

const invalidMediaType = Object.assign(new Error('Unsupported Media Type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 });

describe('toHubError on a refused content type', () => {
  it('names the media type without its parameters', () => {
    const e = toHubError(invalidMediaType, 'application/x-www-form-urlencoded; charset=utf-8');
    assert.equal(e.code, 'HUB_ERR_UNSUPPORTED_MEDIA_TYPE');
    assert.match(e.message, /^the body is sent as application\/x-www-form-urlencoded, /);
  });

  it('says the body had no type when the header is absent or blank', () => {
    for (const type of [undefined, '', '   ']) assert.match(toHubError(invalidMediaType, type).message, /with no content type/);
  });

  it('echoes no control characters and at most 80 characters of what the caller sent', () => {
    const e = toHubError(invalidMediaType, `text/\u001b]2:owned\u0007${'x'.repeat(500)}`);
    const echoed = /sent as (\S+),/.exec(e.message)?.[1] ?? '';
    assert.equal(/[\u0000-\u001f\u007f]/.test(e.message), false);
    assert.equal(echoed.length, 80);
  });
});

describe("toHubError on the router's path parameter bound", () => {
  it('is a catalogued 400 naming the bound, not a 500', () => {
    const tooLong = Object.assign(new URIError("'aaaa' is exceeding the max param length"), { code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 });
    const e = toHubError(tooLong);
    assert.equal(e.code, 'HUB_ERR_BAD_REQUEST');
    assert.match(e.message, /longer than this Hub reads \(100 characters\)/);
  });
});
