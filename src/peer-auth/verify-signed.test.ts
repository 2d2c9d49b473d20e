import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import type { NonceMemory } from './verify-signed.js';

/** The simplest memory the verifier can use: what the store's SQLite table does, in a Set. */
class NonceCache implements NonceMemory {
  readonly #seen = new Set<string>();
  remember(key: string): boolean {
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    return true;
  }
  get size(): number {
    return this.#seen.size;
  }
}
import { signRequest } from './signed-headers.js';
import { SKEW_WINDOW_MS, verifySignedRequest, type VerifySignedParams } from './verify-signed.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const ALICE = '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7';
const BOB = '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3';
const CAROL = 'c4r01000-0000-4000-8000-000000000000';
const MALLORY = 'ma110000-0000-4000-8000-000000000000';
const alice = generateKeyPairSync('ed25519');
const mallory = generateKeyPairSync('ed25519');
const rawKey = (pair: typeof alice): string => pair.publicKey.export({ format: 'jwk' }).x ?? '';
const pinned = new Map([
  [ALICE, rawKey(alice)],
  [MALLORY, rawKey(mallory)],
]);

const PAIR_PATH = '/api/inference/pool/pair/confirm';
const LOCAL_PATH = '/api/inference/pool/local/v1/chat/completions';

interface Call {
  headers: Record<string, string>;
  method: string;
  path: string;
  body: Buffer;
}

/** A request Alice signs for Bob; `signer` swaps in another key, as a forger would. */
function aliceSends(
  o: { path?: string; body?: string; atMs?: number; nonce?: string; recipient?: string; signer?: typeof alice; senderUuid?: string } = {},
): Call {
  const path = o.path ?? PAIR_PATH;
  const body = Buffer.from(o.body ?? '{"token":"t"}');
  const signer = o.signer ?? alice;
  const headers = signRequest({
    sign: (data) => sign(null, data, signer.privateKey),
    senderUuid: o.senderUuid ?? ALICE,
    senderFqdn: 'alpha.tail1234.ts.net',
    recipientUuid: o.recipient ?? BOB,
    method: 'POST',
    path,
    body,
    nowMs: o.atMs ?? T0,
    nonce: o.nonce,
  });
  return { headers, method: 'POST', path, body };
}

function receive(call: Call, o: Partial<VerifySignedParams> = {}): ReturnType<typeof verifySignedRequest> {
  return verifySignedRequest({
    headers: call.headers,
    method: call.method,
    path: call.path,
    body: call.body,
    myUuid: BOB,
    nowMs: T0,
    peerKey: (uuid) => pinned.get(uuid) ?? null,
    nonces: new NonceCache(),
    ...o,
  });
}

const reason = (r: ReturnType<typeof verifySignedRequest>): string => (r.ok ? 'accepted' : r.reason);

describe('verifySignedRequest', () => {
  it('accepts a request signed by a pinned peer, naming the sender', () => {
    assert.deepEqual(receive(aliceSends()), { ok: true, senderUuid: ALICE, senderFqdn: 'alpha.tail1234.ts.net' });
  });

  it('accepts the method in any case, as the canonical form upper-cases it', () => {
    assert.equal(reason(receive({ ...aliceSends(), method: 'post' })), 'accepted');
  });

  it('refuses a request addressed to another UUID as identity-mismatch, even when everything else is wrong too', () => {
    const call = aliceSends({ recipient: CAROL, atMs: T0 - 10 * SKEW_WINDOW_MS });
    call.headers['x-hub-pool-node'] = 'not-pinned';
    call.headers['x-hub-pool-signature'] = 'garbage';
    delete call.headers['x-hub-pool-nonce'];
    assert.equal(reason(receive(call)), 'identity-mismatch');
  });

  for (const header of ['x-hub-pool-node', 'x-hub-pool-peer', 'x-hub-pool-recipient', 'x-hub-pool-timestamp', 'x-hub-pool-nonce', 'x-hub-pool-signature']) {
    it(`refuses a request without ${header} as missing-headers`, () => {
      const call = aliceSends();
      delete call.headers[header];
      assert.equal(reason(receive(call)), 'missing-headers');
    });
  }

  it('refuses a sender UUID with no pinned key as unknown-sender', () => {
    assert.equal(reason(receive(aliceSends(), { peerKey: () => null })), 'unknown-sender');
  });

  const skew: Array<[string, number, string]> = [
    ['301 s old', -301_000, 'skew'],
    ['301 s ahead', 301_000, 'skew'],
    ['299 s old', -299_000, 'accepted'],
    ['299 s ahead', 299_000, 'accepted'],
    ['exactly 300 s old', -300_000, 'accepted'],
  ];
  for (const [name, offset, expected] of skew) {
    it(`${expected === 'skew' ? 'refuses' : 'accepts'} a timestamp ${name}`, () => {
      assert.equal(reason(receive(aliceSends({ atMs: T0 + offset }))), expected);
    });
  }

  it('refuses a replayed nonce', () => {
    const nonces = new NonceCache();
    const call = aliceSends();
    assert.equal(reason(receive(call, { nonces })), 'accepted');
    assert.equal(reason(receive(call, { nonces, nowMs: T0 + 1_000 })), 'replay');
  });

  it('remembers a nonce per sender: another nonce from the same peer, or the same nonce from another peer, is no replay', () => {
    const nonces = new NonceCache();
    const nonce = 'AAECAwQFBgcICQoLDA0ODw';
    assert.equal(reason(receive(aliceSends({ nonce }), { nonces })), 'accepted');
    assert.equal(reason(receive(aliceSends({ nonce: 'BBECAwQFBgcICQoLDA0ODw' }), { nonces })), 'accepted', 'another nonce from Alice');
    assert.equal(reason(receive(aliceSends({ nonce, senderUuid: MALLORY, signer: mallory }), { nonces })), 'accepted', "Alice's nonce from Mallory");
    assert.equal(reason(receive(aliceSends({ nonce }), { nonces })), 'replay', "Alice's nonce from Alice again");
  });

  it('refuses a request re-addressed to another Hub: the signature covers the recipient', () => {
    const call = aliceSends();
    assert.equal(reason(receive(call, { myUuid: CAROL })), 'identity-mismatch', 'as sent');
    call.headers['x-hub-pool-recipient'] = CAROL;
    assert.equal(reason(receive(call, { myUuid: CAROL })), 'bad-signature', 'with the header rewritten');
  });

  it('refuses a tampered body on /pair/*, where the body is signed', () => {
    assert.equal(reason(receive({ ...aliceSends({ path: PAIR_PATH }), body: Buffer.from('{"token":"evil"}') })), 'bad-signature');
  });

  it('accepts a different body on /local/*, where recipient, nonce and timestamp bind the request instead', () => {
    assert.equal(reason(receive({ ...aliceSends({ path: LOCAL_PATH }), body: Buffer.from('{"other":1}') })), 'accepted');
  });

  const tamperings: Array<[string, (c: Call) => Call]> = [
    ['the method', (c) => ({ ...c, method: 'DELETE' })],
    ['the path', (c) => ({ ...c, path: '/api/inference/pool/pair/unpair' })],
    ['the query', (c) => ({ ...c, path: `${c.path}?x=1` })],
    ['the sender name', (c) => ({ ...c, headers: { ...c.headers, 'x-hub-pool-peer': 'mallory.tail1234.ts.net' } })],
    ['the timestamp, within the window', (c) => ({ ...c, headers: { ...c.headers, 'x-hub-pool-timestamp': String(T0 + 1) } })],
    ['the nonce', (c) => ({ ...c, headers: { ...c.headers, 'x-hub-pool-nonce': 'BBECAwQFBgcICQoLDA0ODw' } })],
    ['the sender UUID, to another pinned peer', (c) => ({ ...c, headers: { ...c.headers, 'x-hub-pool-node': MALLORY } })],
  ];
  for (const [name, tamper] of tamperings) {
    it(`refuses a request whose ${name} changed after signing`, () => {
      assert.equal(reason(receive(tamper(aliceSends()))), 'bad-signature');
    });
  }

  it('refuses a signature made with another key, and does not burn the nonce it carried', () => {
    const nonces = new NonceCache();
    const nonce = 'AAECAwQFBgcICQoLDA0ODw';
    assert.equal(reason(receive(aliceSends({ nonce, signer: mallory }), { nonces })), 'bad-signature');
    assert.equal(nonces.size, 0);
    assert.equal(reason(receive(aliceSends({ nonce }), { nonces })), 'accepted', 'the genuine request with that nonce still passes');
  });

  it('refuses when the pinned key itself is unusable', () => {
    assert.equal(reason(receive(aliceSends(), { peerKey: () => 'not-a-key' })), 'bad-signature');
  });

  const malformed: Array<[string, (h: Record<string, string | string[]>) => void]> = [
    [
      'a signature without the v1.ed25519. prefix',
      (h) => void (h['x-hub-pool-signature'] = String(h['x-hub-pool-signature']).replace('v1.ed25519.', 'v2.ed25519.')),
    ],
    ['a signature of the wrong length', (h) => void (h['x-hub-pool-signature'] = 'v1.ed25519.AAAA')],
    ['a signature outside base64url', (h) => void (h['x-hub-pool-signature'] = `v1.ed25519.${'+'.repeat(86)}`)],
    ['a timestamp that is not unix ms', (h) => void (h['x-hub-pool-timestamp'] = new Date(T0).toISOString())],
    ['a nonce too short to be 16 bytes', (h) => void (h['x-hub-pool-nonce'] = 'abc')],
    ['a signature with base64 padding after it', (h) => void (h['x-hub-pool-signature'] = `${String(h['x-hub-pool-signature'])}==`)],
    [
      'a signature starting with a character outside base64url',
      (h) => void (h['x-hub-pool-signature'] = `v1.ed25519.+${String(h['x-hub-pool-signature']).slice(12)}`),
    ],
    ['a timestamp in exponent notation', (h) => void (h['x-hub-pool-timestamp'] = `${T0 / 1e12}e12`)],
    ['a timestamp of 16 digits', (h) => void (h['x-hub-pool-timestamp'] = `000${T0}`)],
    ['a timestamp with a sign', (h) => void (h['x-hub-pool-timestamp'] = `+${T0}`)],
    ['a nonce of 15 characters', (h) => void (h['x-hub-pool-nonce'] = 'A'.repeat(15))],
    ['a nonce of 65 characters', (h) => void (h['x-hub-pool-nonce'] = 'A'.repeat(65))],
    ['a nonce with a character outside base64url', (h) => void (h['x-hub-pool-nonce'] = `+${'A'.repeat(21)}`)],
    ['a nonce with base64 padding', (h) => void (h['x-hub-pool-nonce'] = 'AAECAwQFBgcICQoLDA0ODw==')],
    ['a sender name holding a line break', (h) => void (h['x-hub-pool-peer'] = 'alpha.tail1234.ts.net\nPOST')],
    ['a header sent twice', (h) => void (h['x-hub-pool-nonce'] = ['AAECAwQFBgcICQoLDA0ODw', 'BBECAwQFBgcICQoLDA0ODw'])],
  ];
  for (const [name, spoil] of malformed) {
    it(`refuses ${name} as malformed`, () => {
      const call = aliceSends();
      const headers: Record<string, string | string[]> = { ...call.headers };
      spoil(headers);
      assert.equal(
        reason(
          verifySignedRequest({
            headers,
            method: call.method,
            path: call.path,
            body: call.body,
            myUuid: BOB,
            nowMs: T0,
            peerKey: (u) => pinned.get(u) ?? null,
            nonces: new NonceCache(),
          }),
        ),
        'malformed',
      );
    });
  }

  const nonces: Array<[string, string]> = [
    ['16 characters, the shortest', 'A'.repeat(16)],
    ['64 characters, the longest', '_-'.repeat(32)],
    ['the 22 characters of 16 random bytes', 'AAECAwQFBgcICQoLDA0ODw'],
  ];
  for (const [name, nonce] of nonces) {
    it(`accepts a nonce of ${name}`, () => {
      assert.equal(reason(receive(aliceSends({ nonce }))), 'accepted');
    });
  }

  const timestamps: Array<[string, string, string]> = [
    ['one digit, far in the past', '5', 'skew'],
    ['15 digits, the longest, far in the future', '9'.repeat(15), 'skew'],
  ];
  for (const [name, timestamp, expected] of timestamps) {
    it(`reads a timestamp of ${name} as a time: ${expected}`, () => {
      const call = aliceSends();
      assert.equal(reason(receive({ ...call, headers: { ...call.headers, 'x-hub-pool-timestamp': timestamp } })), expected);
    });
  }

  it('reads a header sent as a one-element list as its value, and an empty list as absent', () => {
    const call = aliceSends();
    const headers: Record<string, string | string[]> = { ...call.headers };
    headers['x-hub-pool-nonce'] = [call.headers['x-hub-pool-nonce'] ?? ''];
    assert.equal(reason(receive(call, { headers })), 'accepted');
    headers['x-hub-pool-nonce'] = [];
    assert.equal(reason(receive(call, { headers })), 'missing-headers');
  });
});
