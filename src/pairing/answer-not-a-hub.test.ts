/**
 * A pairing request answered 200 by something that is not a Hub (a web app published at the
 * name, a page with an SPA fallback) was sent to nobody: the requester keeps no row and says so,
 * with or without a PIN. A Hub's answer always says `received: true`; one that took a PIN also
 * names its identity.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { farIdentity, heldPairing, PEER } from './held-peer-calls.fixture.js';

/** heldPairing with a logger whose lines the test can read. */
function heldPairingWithLogs() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { ...heldPairing({ logger: pino({ level: 'info' }, sink) }), logs: () => lines };
}

async function answered(json: unknown, pin?: string) {
  const { store, pairing, nextCall } = heldPairing();
  const sending = pairing.requestPairing(PEER, pin);
  (await nextCall('/pair/request')).answer({ ok: true, status: 200, headers: {}, json, auth: 'none' });
  const result = await sending.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { result, store };
}

describe('a 200 to a pairing request that is no pairing answer', () => {
  for (const [what, json] of [
    ['an HTML page (not JSON)', null],
    ['an empty object', {}],
    ['other JSON', { status: 'ok', received: 'yes' }],
  ] as const) {
    for (const pin of [undefined, '123456']) {
      it(`${what}, ${pin === undefined ? 'without' : 'with'} a PIN: refused as no Hub, and no row is kept`, async () => {
        const { result, store } = await answered(json, pin);
        assert.equal(result.ok, false, JSON.stringify(result));
        const err = (result as { error: unknown }).error;
        assert.ok(err instanceof HubError);
        assert.equal(err.code, 'HUB_ERR_PEER_UNREACHABLE');
        assert.match(err.message, /something other than a Hub answered at https:\/\/hub-b\.tail0\.ts\.net/);
        assert.equal(store.byFqdn(PEER), null);
      });
    }
  }

  it("a Hub's answers are taken: received without a PIN, and with one its identity", async () => {
    const plain = await answered({ received: true });
    assert.equal(plain.result.ok, true);
    assert.equal(plain.store.byFqdn(PEER)?.status, 'pending');
    const withPin = await answered({ received: true, nodeFqdn: PEER, ...farIdentity() }, '123456');
    assert.equal(withPin.result.ok, true);
    assert.equal(withPin.store.byFqdn(PEER)?.pinVerified, true);
  });
});

/**
 * A refusal without a Hub's error body comes from something that is not a Hub (a laptop's web
 * server, a proxy's login wall): it is reported as no Hub at that name, in the error and in the
 * log, never as the "declined the pairing request" operators search for on a Hub's refusal.
 */
describe('a refusal to a pairing request that carries no Hub error', () => {
  async function refused(status: number, json: unknown) {
    const { store, pairing, nextCall, logs } = heldPairingWithLogs();
    const sending = pairing.requestPairing(PEER, '123456');
    (await nextCall('/pair/request')).answer({ ok: true, status, headers: {}, json, auth: 'none' });
    const error = await sending.then(
      () => assert.fail('the request was taken'),
      (err: unknown) => err,
    );
    return { error, store, logs };
  }

  for (const [what, status, json] of [
    ['a bare 404 page', 404, null],
    ['a 404 with JSON of its own', 404, { detail: 'Not Found' }],
    ["a proxy's 401", 401, null],
    ['an error object without a HUB_ERR_ code', 503, { error: { code: 'E_DOWN', message: 'maintenance' } }],
  ] as const) {
    it(`${what}: no Hub answers there, with its status, and nothing is logged as a decline`, async () => {
      const { error, store, logs } = await refused(status, json);
      assert.ok(error instanceof HubError);
      assert.equal(error.code, 'HUB_ERR_PEER_UNREACHABLE');
      assert.match(error.message, new RegExp(`^no Hub answers at https://hub-b\\.tail0\\.ts\\.net: the answer was HTTP ${status} without a Hub's error`));
      assert.match(error.message, /not a Hub, or Tailscale Serve there does not publish the Hub at that name/);
      assert.doesNotMatch(error.message, /declined|refused/);
      assert.equal(store.byFqdn(PEER), null);
      const logged = logs().join('\n');
      assert.match(logged, /answered HTTP \d+ without a Hub's error: no Hub answers at that name/);
      assert.doesNotMatch(logged, /declined/);
    });
  }

  it("a Hub's own refusal is still a decline, with its reason quoted as its own words", async () => {
    const { error, logs } = await refused(503, { error: { code: 'HUB_ERR_POOL_DISABLED', message: 'Hub Pool is switched off on this Hub' } });
    assert.ok(error instanceof HubError);
    assert.equal(error.code, 'HUB_ERR_PEER_REFUSED');
    assert.equal(error.message, 'hub-b.tail0.ts.net declined the pairing request (HTTP 503); in its own words: "Hub Pool is switched off on this Hub"');
    assert.match(logs().join('\n'), /Peer declined pairing request \(503\)/);
  });
});
