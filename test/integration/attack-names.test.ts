/**
 * Name injection against a real Hub (issue 15, item 2). A peer name is spliced into
 * https://<name>/api/... for every later call, so a name that carries a scheme, a port, a
 * path, credentials, an IP literal, a look-alike of an ASCII letter, extra dots or an
 * over-long label must be refused wherever a name comes in: the anonymous pairing request's
 * fromNodeFqdn, the operator's own pair call, and the X-Hub-Pool-Peer header of a peer route.
 * Each refusal leaves no row and dials nothing. The per-rule table is src/tailnet/peer-name.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fqdn, peers, POOL, reservePorts, send, startNamedHub, SUFFIX, type HubProcess } from './pairing-fixtures.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const HUB = fqdn('hub-n');

/** Names that would steer a later URL, or pass for a name they are not. Each under this Hub's tailnet where it has a suffix at all. */
const INJECTED: readonly [string, string][] = [
  ['a scheme', `https://hub-x.${SUFFIX}`],
  ['a scheme in capitals', `HTTP://hub-x.${SUFFIX}`],
  ['a port', `hub-x.${SUFFIX}:8443`],
  ['a path', `hub-x.${SUFFIX}/api/inference/pool`],
  ['a query', `hub-x.${SUFFIX}?x=1`],
  ['a fragment', `hub-x.${SUFFIX}#x`],
  ['credentials', `user:pw@hub-x.${SUFFIX}`],
  ['credentials before another host', `hub-x.${SUFFIX}@evil.example.com`],
  ['an IPv4 literal', '100.64.0.9'],
  ['an IPv4 literal with a trailing dot', '100.64.0.9.'],
  ['an IPv6 literal', 'fd7a:115c:a1e0::9'],
  ['a bracketed IPv6 literal', '[fd7a:115c:a1e0::9]'],
  ['a name URL parsers read as IPv4', `hub-x.${SUFFIX}.0x7f`],
  ['the Kelvin sign for k', `\u212Aub-x.${SUFFIX}`],
  ['Cyrillic a', `hub-x.t\u0430il0.ts.net`],
  ['a fullwidth full stop', `hub-x\uFF0E${SUFFIX}`],
  ['an ideographic full stop', `hub-x\u3002${SUFFIX}`],
  ['a zero-width space', `hub\u200B-x.${SUFFIX}`],
  ['a leading byte-order mark', `\uFEFFhub-x.${SUFFIX}`],
  ['a trailing no-break space', `hub-x.${SUFFIX}\u00A0`],
  ['two trailing dots', `hub-x.${SUFFIX}..`],
  ['a leading dot', `.hub-x.${SUFFIX}`],
  ['an empty label', `hub-x..${SUFFIX}`],
  ['a label of 64 characters', `${'a'.repeat(64)}.${SUFFIX}`],
  ['a name of 254 characters', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63 - SUFFIX.length)}.${SUFFIX}`.padStart(254, 'e')],
  ['a control character', `hub-x\n.${SUFFIX}`],
  ['a percent-encoded dot', `hub-x%2e${SUFFIX}`],
  ['a backslash', `hub-x\\.${SUFFIX}`],
];

describe('names that try to steer where the Hub dials', () => {
  let hub: HubProcess;
  /** Listens where a steered dial could land; it must never be asked anything. */
  let trap: Server;
  let trapHits = 0;

  before(async () => {
    trap = createServer((_req, res) => {
      trapHits += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const trapOrigin = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
    const ports = await reservePorts(['hub']);
    // The development map sends the one well-formed name these spell to the trap, so a name that is
    // cleaned up into it (rather than refused) would be dialled there.
    hub = await startNamedHub({ name: HUB, port: ports.hub, origins: { [fqdn('hub-x')]: trapOrigin, [fqdn('kub-x')]: trapOrigin } });
  });
  after(async () => {
    await hub?.stop();
    await new Promise<void>((resolve) => trap.close(() => resolve()));
  });

  for (const [what, name] of INJECTED) {
    it(`refuses ${what} (${JSON.stringify(name).slice(0, 50)}) in a pairing request, in the operator's pair call and as X-Hub-Pool-Peer, leaving no row`, async () => {
      const before = await peers(hub);
      const inbound = await send(hub.url, 'POST', `${POOL}/pair/request`, { body: { fromNodeFqdn: name, token: randomBytes(32).toString('base64url') } });
      assert.ok(inbound.status === 400 || inbound.status === 403, `pairing request: ${inbound.status} ${inbound.text}`);
      const outbound = await hub.api<{ error?: { code?: string } }>('POST', `${POOL}/peers/pair`, { nodeFqdn: name });
      assert.ok(outbound.status === 400 || outbound.status === 403, `operator pair: ${outbound.status} ${JSON.stringify(outbound.json)}`);
      // Node refuses control characters in a header value before anything is sent.
      if (!/[\u0000-\u001f\u007f-\uffff]/.test(name)) {
        const header = await send(hub.url, 'GET', `${POOL}/capabilities`, {
          headers: { 'x-hub-pool-peer': name, authorization: `Bearer ${randomBytes(32).toString('base64url')}` },
        });
        assert.equal(header.status, 401, `X-Hub-Pool-Peer: ${header.text}`);
      }
      assert.deepEqual(await peers(hub), before, 'no row for any of them');
      assert.equal(trapHits, 0, 'nothing was dialled');
    });
  }

  it('takes the same name with one trailing dot as that name (how Tailscale writes it), not as a second identity', async () => {
    const plain = fqdn('hub-dot');
    const first = await send(hub.url, 'POST', `${POOL}/pair/request`, { body: { fromNodeFqdn: `${plain}.`, token: randomBytes(32).toString('base64url') } });
    assert.equal(first.status, 200, first.text);
    const rows = (await peers(hub)).filter((p) => p.nodeFqdn.startsWith('hub-dot'));
    assert.deepEqual(
      rows.map((p) => p.nodeFqdn),
      [plain],
    );
  });
});
