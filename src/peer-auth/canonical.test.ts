import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bodyHash, canonicalRequest, coversBody } from './canonical.js';

const parts = {
  method: 'post',
  path: '/api/inference/pool/pair/confirm',
  senderUuid: '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7',
  senderFqdn: 'alpha.tail1234.ts.net',
  recipientUuid: '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3',
  timestamp: '1796040000000',
  nonce: 'AAECAwQFBgcICQoLDA0ODw',
  bodyHash: bodyHash(Buffer.from('abc')),
};

describe('canonicalRequest', () => {
  it('is the nine lines of the contract, joined by \\n with no trailing newline (fixed vector)', () => {
    const expected =
      'hub-pool-request-v1\n' +
      'POST\n' +
      '/api/inference/pool/pair/confirm\n' +
      '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7\n' +
      'alpha.tail1234.ts.net\n' +
      '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3\n' +
      '1796040000000\n' +
      'AAECAwQFBgcICQoLDA0ODw\n' +
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    assert.equal(canonicalRequest(parts).toString('utf8'), expected);
  });

  it('ends in an empty line when the body is not covered', () => {
    const bytes = canonicalRequest({ ...parts, method: 'GET', path: '/api/inference/pool/local/v1/models?x=1', bodyHash: null }).toString('utf8');
    assert.equal(
      bytes,
      'hub-pool-request-v1\nGET\n/api/inference/pool/local/v1/models?x=1\n6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7\nalpha.tail1234.ts.net\n0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3\n1796040000000\nAAECAwQFBgcICQoLDA0ODw\n',
    );
  });

  it('refuses a field holding a line break, which would let one field pose as two', () => {
    assert.throws(() => canonicalRequest({ ...parts, senderFqdn: 'alpha.tail1234.ts.net\nPOST' }), /line break/);
    assert.throws(() => canonicalRequest({ ...parts, path: '/x\r' }), /line break/);
  });
});

describe('bodyHash', () => {
  it('is the hex SHA-256 of the bytes', () => {
    assert.equal(bodyHash(Buffer.alloc(0)), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('coversBody', () => {
  const table: Array<[string, boolean]> = [
    ['/api/inference/pool/pair/request', true],
    ['/api/inference/pool/pair/confirm', true],
    ['/api/inference/pool/pair/unpair?reason=x', true],
    ['/api/inference/pool/local/v1/chat/completions', false],
    ['/api/inference/pool/capabilities', false],
    ['/api/inference/pool/local/v1/models?next=/pair/x', false],
    // With no query the whole path is judged, up to its last character.
    ['/api/inference/pool/pair/', true],
    // A bare query names no route at all.
    ['?next=/pair/x', false],
    // Percent-escapes are judged decoded, as the router reads them.
    ['/api/inference/pool/%70air/confirm', true],
    ['/api/inference/pool/pair%2Fconfirm', true],
    ['/api/inference/pool/local/v1/models?next=%2Fpair%2Fx', false],
    // An escape that does not decode is covered: no spelling escapes the body hash.
    ['/api/inference/pool/%zz/confirm', true],
  ];
  for (const [path, covered] of table) {
    it(`${covered ? 'covers' : 'does not cover'} the body on ${path}`, () => {
      assert.equal(coversBody(path), covered);
    });
  }
});
