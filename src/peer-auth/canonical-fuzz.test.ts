/**
 * Generated inputs against the signed-request contract (issue 15, item 4): the canonical bytes
 * and the receiving side's parsing of the six headers. Whatever arrives, the verifier answers
 * with a refusal from its catalogue and never throws, and a refused request leaves no nonce
 * behind (a nonce recorded for a forged request would burn the real sender's).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { fuzzRuns } from '../../test/helpers/fuzz-runs.js';
import { CANONICAL_PREAMBLE, canonicalRequest, type CanonicalRequestParts } from './canonical.js';
import { HEADER_NODE, HEADER_NONCE, HEADER_PEER, HEADER_RECIPIENT, HEADER_SIGNATURE, HEADER_TIMESTAMP, signRequest } from './signed-headers.js';
import { verifySignedRequest, type NonceMemory, type VerifyRefusal } from './verify-signed.js';

/** Pure and cheap: a few hundred cases take well under a second. */
const BOUNDED_RUNS = 400;
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const ALICE = '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7';
const BOB = '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3';
const alice = generateKeyPairSync('ed25519');
const aliceKey = alice.publicKey.export({ format: 'jwk' }).x ?? '';
const REFUSALS: readonly VerifyRefusal[] = ['missing-headers', 'identity-mismatch', 'unknown-sender', 'skew', 'replay', 'bad-signature', 'malformed'];
const HEADERS = [HEADER_NODE, HEADER_PEER, HEADER_RECIPIENT, HEADER_TIMESTAMP, HEADER_NONCE, HEADER_SIGNATURE] as const;

/** A nonce memory that records every key it is asked to remember. */
class RecordingNonces implements NonceMemory {
  readonly keys: string[] = [];
  remember(key: string): boolean {
    this.keys.push(key);
    return true;
  }
}

/** Any text, line breaks and lone surrogates included. */
const anyText = fc.string({ unit: 'binary', maxLength: 80 });
/** Text without the two characters a canonical field may not hold. */
const fieldText = anyText.filter((s) => !/[\r\n]/.test(s));
const parts = fc.record({
  method: fieldText,
  path: fieldText,
  senderUuid: fieldText,
  senderFqdn: fieldText,
  recipientUuid: fieldText,
  timestamp: fieldText,
  nonce: fieldText,
  bodyHash: fc.option(fieldText, { nil: null }),
});

describe('the canonical signing string, on generated fields', () => {
  it('is nine lines that give back every field as it was (the method upper-cased), so no two requests share bytes', () => {
    fc.assert(
      fc.property(parts, (p: CanonicalRequestParts) => {
        const lines = canonicalRequest(p).toString('utf8').split('\n');
        // Lone surrogates become U+FFFD in UTF-8, on both Hubs alike; compare what was encoded.
        const encoded = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
        assert.deepEqual(
          lines,
          [CANONICAL_PREAMBLE, p.method.toUpperCase(), p.path, p.senderUuid, p.senderFqdn, p.recipientUuid, p.timestamp, p.nonce, p.bodyHash ?? ''].map(
            encoded,
          ),
        );
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('refuses, by throwing, any field that holds a line break, whichever field it is', () => {
    const withBreak = fc.tuple(anyText, fc.constantFrom('\n', '\r', '\r\n'), anyText).map(([a, br, b]) => a + br + b);
    const field = fc.constantFrom('method', 'path', 'senderUuid', 'senderFqdn', 'recipientUuid', 'timestamp', 'nonce', 'bodyHash') satisfies fc.Arbitrary<
      keyof CanonicalRequestParts
    >;
    fc.assert(
      fc.property(parts, field, withBreak, (p, name, bad) => {
        assert.throws(() => canonicalRequest({ ...p, [name]: bad }), /line break/);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });
});

describe('the signed-request headers as the receiver parses them, on generated input', () => {
  const headerValue = fc.oneof(fc.constant(undefined), anyText, fc.array(anyText, { maxLength: 3 }));
  const headers = fc.record(Object.fromEntries(HEADERS.map((h) => [h, headerValue])) as Record<(typeof HEADERS)[number], typeof headerValue>, {
    requiredKeys: [],
  });

  it('answers any headers, method, path and body with a catalogued refusal, never a throw, and remembers no nonce', () => {
    fc.assert(
      fc.property(headers, anyText, anyText, fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 0, max: 2 * T0 }), (h, method, path, body, nowMs) => {
        const nonces = new RecordingNonces();
        const r = verifySignedRequest({
          headers: h,
          method,
          path,
          body: Buffer.from(body),
          myUuid: BOB,
          nowMs,
          peerKey: (u) => (u === ALICE ? aliceKey : null),
          nonces,
        });
        assert.equal(r.ok, false);
        if (!r.ok) assert.ok(REFUSALS.includes(r.reason), r.reason);
        assert.deepEqual(nonces.keys, []);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('refuses a genuine request with any one header replaced, and remembers no nonce for it', () => {
    const path = '/api/inference/pool/pair/confirm';
    const body = Buffer.from('{"token":"t"}');
    fc.assert(
      fc.property(fc.constantFrom(...HEADERS), anyText, (name, value) => {
        const genuine = signRequest({
          sign: (d) => sign(null, d, alice.privateKey),
          senderUuid: ALICE,
          senderFqdn: 'alpha.tail0.ts.net',
          recipientUuid: BOB,
          method: 'POST',
          path,
          body,
          nowMs: T0,
        });
        fc.pre(genuine[name] !== value);
        const nonces = new RecordingNonces();
        const r = verifySignedRequest({
          headers: { ...genuine, [name]: value },
          method: 'POST',
          path,
          body,
          myUuid: BOB,
          nowMs: T0,
          peerKey: (u) => (u === ALICE ? aliceKey : null),
          nonces,
        });
        assert.equal(r.ok, false, `accepted with ${name}: ${JSON.stringify(value)}`);
        assert.deepEqual(nonces.keys, []);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('refuses a genuine request whose body or path was changed on the way, when the signature covers them', () => {
    const path = '/api/inference/pool/pair/confirm';
    const body = '{"token":"t"}';
    fc.assert(
      fc.property(fc.oneof(fc.record({ body: anyText }), fc.record({ path: fieldText })), (change: { body?: string; path?: string }) => {
        fc.pre(change.body !== body && change.path !== path);
        const genuine = signRequest({
          sign: (d) => sign(null, d, alice.privateKey),
          senderUuid: ALICE,
          senderFqdn: 'alpha.tail0.ts.net',
          recipientUuid: BOB,
          method: 'POST',
          path,
          body: Buffer.from(body),
          nowMs: T0,
        });
        const nonces = new RecordingNonces();
        const r = verifySignedRequest({
          headers: genuine,
          method: 'POST',
          path: change.path ?? path,
          body: Buffer.from(change.body ?? body),
          myUuid: BOB,
          nowMs: T0,
          peerKey: (u) => (u === ALICE ? aliceKey : null),
          nonces,
        });
        assert.equal(r.ok, false);
        assert.deepEqual(nonces.keys, []);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });
});
