import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hubInfoUrl } from './hub-info-url.js';

describe('hubInfoUrl', () => {
  it('names the address the socket is bound to', () => {
    assert.equal(hubInfoUrl({ address: '127.0.0.1', family: 'IPv4', port: 5002 }), 'http://127.0.0.1:5002');
    assert.equal(hubInfoUrl({ address: '100.101.102.103', family: 'IPv4', port: 5002 }), 'http://100.101.102.103:5002');
  });

  it('brackets an IPv6 address', () => {
    assert.equal(hubInfoUrl({ address: '::1', family: 'IPv6', port: 5002 }), 'http://[::1]:5002');
    assert.equal(hubInfoUrl({ address: 'fd7a:115c:a1e0::1', family: 'IPv6', port: 5002 }), 'http://[fd7a:115c:a1e0::1]:5002');
  });

  it('reaches a wildcard bind of either family at 127.0.0.1, which a dual-stack :: takes even where loopback has no IPv6', () => {
    assert.equal(hubInfoUrl({ address: '0.0.0.0', family: 'IPv4', port: 5002 }), 'http://127.0.0.1:5002');
    assert.equal(hubInfoUrl({ address: '::', family: 'IPv6', port: 5002 }), 'http://127.0.0.1:5002');
  });
});
