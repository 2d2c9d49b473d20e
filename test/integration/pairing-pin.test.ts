/**
 * The unauthenticated edge of pairing, attacked from loopback (docs/peer-protocol.md, "Pairing
 * handshake" step 2): PIN guessing, the per-source limiter, names that would steer later calls,
 * the pending-request ceiling, and what an anonymous caller can learn from /identify.
 *
 * Every caller here is anonymous. Guesses come from distinct loopback addresses (127.0.0.x)
 * and names unless a test means to be one persistent source, so the per-source limiter never
 * decides a test that is about the PIN itself.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID, generateKeyPairSync } from 'node:crypto';
import { keyFingerprint } from '../../src/identity/fingerprint.js';
import { MAX_PENDING_INBOUND, MAX_PENDING_WITH_PIN } from '../../src/pairing/pairing-service.js';
import {
  POOL,
  fqdn,
  freshSource,
  mintPin,
  nodeUuidOf,
  peers,
  send,
  startNamedHub,
  status,
  reservePorts,
  type Answer,
  type HubProcess,
} from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const P = fqdn('hub-p');
const Q = fqdn('hub-q');
const REQUEST = `${POOL}/pair/request`;

const token = () => randomBytes(32).toString('base64url');
let nameSeq = 0;
const freshName = (tag = 'guess') => fqdn(`${tag}-${++nameSeq}`);

function identityBody() {
  return { nodeUuid: randomUUID(), publicKey: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string };
}

/** One pairing request, from a given source address, with a PIN (and an identity) when given. */
function ask(hub: HubProcess, o: { from?: string; pin?: unknown; source?: string; body?: Record<string, unknown> } = {}): Promise<Answer> {
  const body = o.body ?? { fromNodeFqdn: o.from ?? freshName(), token: token(), ...(o.pin === undefined ? {} : { pin: o.pin, ...identityBody() }) };
  return send(hub.url, 'POST', REQUEST, { body, localAddress: o.source ?? freshSource() });
}

function wrongPin(right: string): string {
  return String((Number(right) + 1) % 1_000_000).padStart(6, '0');
}

async function rowNames(hub: HubProcess): Promise<string[]> {
  return (await peers(hub)).map((p) => p.nodeFqdn);
}

describe('pairing requests from anonymous callers', () => {
  let hubP: HubProcess;
  let hubQ: HubProcess;
  let refusal401: Answer;

  before(async () => {
    const ports = await reservePorts(['p', 'q']);
    [hubP, hubQ] = await startTogether([startNamedHub({ name: P, port: ports.p, origins: {} }), startNamedHub({ name: Q, port: ports.q, origins: {} })]);
  });
  after(async () => {
    await Promise.all([hubP, hubQ].filter(Boolean).map((h) => h.stop()));
  });

  const assertSameRefusal = (res: Answer, what: string) => {
    assert.equal(res.status, 401, `${what}: ${res.text}`);
    assert.deepEqual(res.json, refusal401.json, `${what} answers exactly like every other refused PIN`);
    assert.equal(res.headers['content-length'], refusal401.headers['content-length'], what);
  };

  it('6a. wrong, replaced, used, cancelled and none-outstanding PINs all answer the same 401', async () => {
    assert.equal((await status(hubP)).pairingPin.active, false);
    refusal401 = await ask(hubP, { pin: '123456' });
    assert.equal(refusal401.status, 401, refusal401.text);
    assert.equal(refusal401.json.error.code, 'HUB_ERR_PAIR_PIN_REFUSED');

    const first = await mintPin(hubP);
    assertSameRefusal(await ask(hubP, { pin: wrongPin(first.pin) }), 'a wrong PIN');
    assertSameRefusal(await ask(hubP, { pin: 'abcdef' }), 'a PIN that is not six digits');
    const second = await mintPin(hubP);
    if (second.pin !== first.pin) assertSameRefusal(await ask(hubP, { pin: first.pin }), 'a PIN replaced by a newer one');
    const used = await ask(hubP, { pin: second.pin });
    assert.equal(used.status, 200, `the current PIN is accepted once: ${used.text}`);
    assertSameRefusal(await ask(hubP, { pin: second.pin }), 'a PIN already used');
    const third = await mintPin(hubP);
    assert.equal((await hubP.api('DELETE', `${POOL}/pairing-pin`)).status, 200);
    assertSameRefusal(await ask(hubP, { pin: third.pin }), 'a cancelled PIN');
    // Expiry (ten minutes) is the same code path as "none outstanding"; it is covered by the
    // PairingPin unit tests with a fake clock rather than by a ten-minute wait here.
  });

  it('6b. the fifth wrong guess destroys the PIN (the right one is refused after it); four do not', async () => {
    const four = await mintPin(hubP);
    for (let i = 0; i < 4; i++) assertSameRefusal(await ask(hubP, { pin: wrongPin(four.pin) }), `wrong guess ${i + 1}`);
    const survived = await ask(hubP, { pin: four.pin });
    assert.equal(survived.status, 200, `after four wrong guesses the PIN still works: ${survived.text}`);

    const five = await mintPin(hubP);
    for (let i = 0; i < 5; i++) assertSameRefusal(await ask(hubP, { pin: wrongPin(five.pin) }), `wrong guess ${i + 1}`);
    assert.equal((await status(hubP)).pairingPin.active, false, 'the fifth wrong guess withdrew the PIN');
    const rowsBefore = await rowNames(hubP);
    const from = freshName('right-too-late');
    assertSameRefusal(await ask(hubP, { pin: five.pin, from }), 'the right PIN after five wrong guesses');
    assert.deepEqual(await rowNames(hubP), rowsBefore);
  });

  it('6c. a source that keeps guessing gets 429, by its name and by its address, before its guess is judged', async () => {
    const pin = (await mintPin(hubP)).pin;
    // One source (one name, one address): two wrong guesses, then even the right PIN is refused 429.
    const source = freshSource();
    const name = freshName('persistent');
    assertSameRefusal(await ask(hubP, { from: name, source, pin: wrongPin(pin) }), 'strike 1');
    assertSameRefusal(await ask(hubP, { from: name, source, pin: wrongPin(pin) }), 'strike 2');
    const limited = await ask(hubP, { from: name, source, pin });
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.json.error.code, 'HUB_ERR_PAIR_RATE_LIMITED');
    // By address alone: a new name from the same address is still refused.
    assert.equal((await ask(hubP, { source, pin })).status, 429, 'same address, new name');
    // By name alone: the same name from a new address is still refused.
    assert.equal((await ask(hubP, { from: name, pin })).status, 429, 'same name, new address');
    // The 429s spent nothing: the PIN is still outstanding, and another source can use it.
    assert.equal((await status(hubP)).pairingPin.active, true);
    const other = await ask(hubP, { pin });
    assert.equal(other.status, 200, `the PIN survived the limited guesses: ${other.text}`);
    assert.equal((await rowNames(hubP)).includes(name), false, 'the limited source got no row');
  });

  it('6d. a wrong PIN leaves no row, no pinned key and no planted token', async () => {
    const pin = (await mintPin(hubP)).pin;
    const before = await rowNames(hubP);
    const names = [freshName('wrong'), freshName('wrong'), freshName('wrong')];
    for (const from of names) assertSameRefusal(await ask(hubP, { from, pin: wrongPin(pin) }), `wrong PIN from ${from}`);
    assert.deepEqual(await rowNames(hubP), before, 'no row for any wrong guess');
    // Those names are unknown to the Hub: the same names without a PIN are taken as brand-new requests.
    const later = await ask(hubP, { from: names[0] });
    assert.deepEqual(later.json, { received: true });
    const row = (await peers(hubP)).find((p) => p.nodeFqdn === names[0]);
    assert.equal(row?.fingerprint, null, 'no key from the refused request was kept');
    assert.equal(row?.pinVerified, false);
  });

  it("7. names: off-tailnet 403, URL-ish or IP-literal 400, this Hub's own name or UUID refused — and no row for any", async () => {
    const before = await rowNames(hubP);
    const offTailnet = ['evil.example.com', `hub-x.tail9.ts.net`, `hub-x.${'tail0.ts.net'}.evil.com`, 'tail0.ts.net', 'xtail0.ts.net'];
    for (const from of offTailnet) {
      const res = await ask(hubP, { from });
      assert.equal(res.status, 403, `${from}: ${res.text}`);
      assert.equal(res.json.error.code, 'HUB_ERR_PAIR_OUTSIDE_TAILNET', from);
    }
    const malformed = [
      '100.64.0.7',
      '[fd7a:115c:a1e0::1]',
      'fd7a:115c:a1e0::1',
      `https://hub-x.tail0.ts.net`,
      `hub-x.tail0.ts.net:8443`,
      `user:pw@hub-x.tail0.ts.net`,
      `hub-x.tail0.ts.net/evil`,
      `hub-x`,
      '',
    ];
    for (const from of malformed) {
      const res = await ask(hubP, { from });
      assert.equal(res.status, 400, `${JSON.stringify(from)}: ${res.text}`);
      assert.equal(res.json.error.code, 'HUB_ERR_PAIR_NAME_INVALID', from);
    }
    const self = await ask(hubP, { from: P });
    assert.equal(self.status, 400, self.text);
    assert.equal(self.json.error.code, 'HUB_ERR_PAIR_SELF');
    const selfUpper = await ask(hubP, { from: `${P.toUpperCase()}.` });
    assert.equal(selfUpper.status, 400, 'its own name in another spelling');
    // This Hub's own UUID under another name, carried by a valid PIN, is refused as self-pairing too.
    const myUuid = await nodeUuidOf(hubP);
    const pin = (await mintPin(hubP)).pin;
    const ownKey = { nodeUuid: myUuid, publicKey: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string };
    const selfByUuid = await ask(hubP, { body: { fromNodeFqdn: freshName('impostor'), token: token(), pin, ...ownKey } });
    assert.equal(selfByUuid.status, 400, selfByUuid.text);
    assert.equal(selfByUuid.json.error.code, 'HUB_ERR_PAIR_SELF');
    assert.deepEqual(await rowNames(hubP), before, 'not one of these requests left a row');
  });

  it('8. pending requests without a PIN past 15 are refused 429 (pending full) and stored nowhere; five with a PIN still find room, and no more: 20 in all', async () => {
    const names = Array.from({ length: MAX_PENDING_INBOUND }, (_, i) => fqdn(`pending-${String(i + 1).padStart(2, '0')}`));
    for (const from of names) {
      const res = await ask(hubQ, { from });
      assert.equal(res.status, 200, `${from}: ${res.text}`);
      assert.deepEqual(res.json, { received: true });
    }
    const overflow = fqdn('pending-overflow');
    const full = await ask(hubQ, { from: overflow });
    assert.equal(full.status, 429, full.text);
    assert.equal(full.json.error.code, 'HUB_ERR_PAIR_PENDING_FULL');
    // Five places are kept for PIN-verified requests (issue 9, defect 17): those without a PIN cannot stop one with.
    const withPin = Array.from({ length: MAX_PENDING_WITH_PIN }, (_, i) => fqdn(`pinned-${i + 1}`));
    for (const from of withPin) {
      const res = await ask(hubQ, { from, pin: (await mintPin(hubQ)).pin });
      assert.equal(res.status, 200, `${from}: ${res.text}`);
    }
    const pinOverflow = await ask(hubQ, { from: fqdn('pinned-overflow'), pin: (await mintPin(hubQ)).pin });
    assert.equal(pinOverflow.status, 429, pinOverflow.text);
    assert.equal(pinOverflow.json.error.code, 'HUB_ERR_PAIR_PENDING_FULL');
    const rows = await peers(hubQ);
    assert.equal(rows.length, 20, 'the spec bounds the requests waiting at 20 in all');
    assert.ok(rows.every((r) => r.direction === 'inbound' && r.status === 'pending'));
    assert.deepEqual(rows.map((r) => r.nodeFqdn).sort(), [...names, ...withPin].sort());
    // A repeat from a name already waiting is acknowledged and changes nothing.
    assert.deepEqual((await ask(hubQ, { from: names[0] })).json, { received: true });
    assert.equal((await peers(hubQ)).length, 20);
  });

  it('9. /identify says only { isCiHub, poolProtocol }; the name, UUID and key come back only to a valid PIN', async () => {
    const myUuid = await nodeUuidOf(hubP);
    const me = (await status(hubP)).localNode.identity!;
    const identify = await send(hubP.url, 'GET', `${POOL}/identify`);
    assert.equal(identify.status, 200);
    assert.deepEqual(identify.json, { isCiHub: true, poolProtocol: 2 });
    for (const secret of [myUuid, P, 'hub-p']) {
      assert.ok(!identify.text.includes(secret) && !JSON.stringify(identify.headers).includes(secret), `/identify does not disclose ${secret}`);
    }
    // The guarded capabilities route, where the UUID does live, refuses an anonymous caller.
    const caps = await send(hubP.url, 'GET', `${POOL}/capabilities`);
    assert.equal(caps.status, 401);
    assert.ok(!caps.text.includes(myUuid));

    const noPin = await ask(hubP);
    assert.deepEqual(noPin.json, { received: true }, 'without a PIN: an acknowledgement and nothing else');
    const pin = (await mintPin(hubP)).pin;
    const wrong = await ask(hubP, { pin: wrongPin(pin) });
    assert.equal(wrong.status, 401);
    assert.ok(!wrong.text.includes(myUuid) && !wrong.text.includes(P), 'a wrong PIN learns nothing');
    const right = await ask(hubP, { pin });
    assert.equal(right.status, 200, right.text);
    assert.deepEqual(Object.keys(right.json).sort(), ['nodeFqdn', 'nodeUuid', 'publicKey', 'received']);
    assert.equal(right.json.nodeFqdn, P);
    assert.equal(right.json.nodeUuid, myUuid);
    assert.equal(keyFingerprint(right.json.publicKey as string), me.fingerprint, 'the key is the one whose fingerprint the operator sees');
  });
});
