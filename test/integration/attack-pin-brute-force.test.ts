/**
 * PIN brute force across many claimed names (issue 15, item 2). An attacker who can reach the
 * pairing route fires guesses all at once, each under a new name from a new loopback address,
 * so the per-source limiter never sees the same source twice. The PIN's own bound (five wrong
 * guesses destroy it; spec, "Finding a peer by address") must hold across all of them, also
 * when they arrive together: no guess is accepted, the right PIN is refused after the burst,
 * and no claimed name is left with a row. Sequential guessing is in pairing-pin.test.ts (6a-6d).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { fqdn, freshSource, mintPin, peers, POOL, reservePorts, send, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';

const HUB = fqdn('hub-brute');
/** Guesses in the burst: well past the five the PIN allows, within the loopback sources one file may use. */
const BURST = 60;

function guess(hub: HubProcess, name: string, pin: string) {
  const body = {
    fromNodeFqdn: name,
    token: randomBytes(32).toString('base64url'),
    pin,
    nodeUuid: randomUUID(),
    publicKey: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string,
  };
  return send(hub.url, 'POST', `${POOL}/pair/request`, { body, localAddress: freshSource() });
}

describe('a burst of PIN guesses under many names', () => {
  let hub: HubProcess;

  before(async () => {
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: HUB, port: ports.hub, origins: {} });
  });
  after(async () => {
    await hub?.stop();
  });

  it(`accepts none of ${BURST} concurrent wrong guesses from ${BURST} names and addresses, and the right PIN is dead after them`, async () => {
    const { pin } = await mintPin(hub);
    const right = Number(pin);
    // Every other six-digit PIN near the right one: distinct guesses, none of them right.
    const wrong = Array.from({ length: BURST }, (_, i) => String((right + 1 + i) % 1_000_000).padStart(6, '0'));
    const names = wrong.map((_, i) => fqdn(`brute-${i}`));
    const answers = await Promise.all(wrong.map((p, i) => guess(hub, names[i]!, p)));
    for (const [i, a] of answers.entries()) assert.ok(a.status === 401 || a.status === 429, `guess ${i}: ${a.status} ${a.text}`);
    assert.equal((await status(hub)).pairingPin.active, false, 'the burst destroyed the PIN');
    const late = await guess(hub, fqdn('brute-right'), pin);
    assert.equal(late.status, 401, `the right PIN after the burst: ${late.text}`);
    const rows = (await peers(hub)).map((p) => p.nodeFqdn);
    assert.deepEqual(
      rows.filter((n) => n.startsWith('brute-')),
      [],
      'no claimed name has a row',
    );
  });
});
