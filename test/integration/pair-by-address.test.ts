/**
 * Probing and pairing by address, through the CLI, between real Hubs (spec: "Finding a peer by
 * address"). The LAN address 192.168.77.2 stands for hub-b: the development dial map sends that
 * address to hub-b's loopback port, while the address checks run on the address itself. Then
 * every address the check must refuse, each refused before anything is dialled.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import type { PeerView } from '../../src/peers/peer-view.js';
import { eventually, freePort, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { refusedPort } from '../helpers/refused-port.js';
import { startTogether } from '../helpers/start-together.js';

const A = 'hub-a.tail0.ts.net';
const B = 'hub-b.tail0.ts.net';
const SUFFIX = 'tail0.ts.net';
const B_ADDRESS = '192.168.77.2';
/** Answers on the second default port only. */
const B_ON_3000 = '192.168.77.3';
/** An older Hub: /identify without a protocol version. */
const OLD_HUB = '192.168.77.4';
/** Nothing listens there on any port: a Hub left listening on its default, loopback. */
const LOOPBACK_ONLY_HUB = '192.168.77.5';
/** hub-b behind a LAN that someone listens on: every body on the way, both ways, is recorded. */
const OVERHEARD_B = '192.168.77.6';
/** hub-b at its tailnet IPv6 address (fd7a:115c:a1e0::/48), on any port. */
const B_IPV6 = 'fd7a:115c:a1e0::b2';
/** Nothing listens there: a Hub left on loopback, asked at its tailnet IPv6 address. */
const LOOPBACK_ONLY_IPV6 = 'fd7a:115c:a1e0::b5';

async function rowsOf(hub: HubProcess): Promise<PeerView[]> {
  return (await hub.api<{ peers: PeerView[] }>('GET', '/api/inference/pool/peers')).json.peers;
}

describe('probe and pair by address', () => {
  let a: HubProcess;
  let b: HubProcess;
  let old: Server;
  const oldSeen: string[] = [];
  let tap: Server;
  const overheard: string[] = [];

  before(async () => {
    old = createServer((req, res) => {
      oldSeen.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/api/inference/pool/identify' ? '{"isCiHub":true}' : '{"received":true}');
    });
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    const oldPort = (old.address() as { port: number }).port;
    const [pa, pb, closed] = [await freePort(), await freePort(), await refusedPort()];
    tap = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        overheard.push(body.toString());
        const headers = { ...req.headers, host: `127.0.0.1:${pb}` };
        request(`http://127.0.0.1:${pb}${req.url ?? '/'}`, { method: req.method as 'GET' | 'POST', headers, body: body.length > 0 ? body : undefined })
          .then(async (answer) => {
            const text = await answer.body.text();
            overheard.push(text);
            res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
            res.end(text);
          })
          .catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => tap.listen(0, '127.0.0.1', resolve));
    const tapPort = (tap.address() as { port: number }).port;
    const origins = [
      `${A}=http://127.0.0.1:${pa}`,
      `${B}=http://127.0.0.1:${pb}`,
      `${B_ADDRESS}:5002=http://127.0.0.1:${pb}`,
      `${B_ON_3000}:5002=http://127.0.0.1:${closed}`,
      `${B_ON_3000}:3000=http://127.0.0.1:${pb}`,
      `${OLD_HUB}=http://127.0.0.1:${oldPort}`,
      `${LOOPBACK_ONLY_HUB}=http://127.0.0.1:${closed}`,
      `${OVERHEARD_B}:5002=http://127.0.0.1:${tapPort}`,
      `${B_IPV6}=http://127.0.0.1:${pb}`,
      `${LOOPBACK_ONLY_IPV6}=http://127.0.0.1:${closed}`,
    ].join(',');
    const env = (name: string) => ({ HUB_NODE_FQDN: name, HUB_TAILNET_SUFFIX: SUFFIX, HUB_POOL_PEER_ORIGINS: origins });
    [a, b] = await startTogether([startHubProcess({ port: pa, env: env(A) }), startHubProcess({ port: pb, env: env(B) })]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await new Promise<void>((resolve) => old.close(() => resolve()));
    await new Promise<void>((resolve) => tap.close(() => resolve()));
  });
  afterEach(async () => {
    for (const hub of [a, b]) for (const p of await rowsOf(hub)) await hub.api('DELETE', `/api/inference/pool/peers/${p.id}`);
  });

  it('probes an address: a Hub answers there, and it can be paired with by address', async () => {
    const run = await runCli(['pool', 'probe', `${B_ADDRESS}:5002`], { dataDir: a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^A Hub answers at 192\.168\.77\.2:5002 \(pool protocol 2\)\. Its name stays unknown until it answers a PIN\./);
    assert.match(run.stdout, /cihub pool pair 192\.168\.77\.2:5002 --pin <the six digits>/);
  });

  it('tries port 5002, then 3000, when no port is given', async () => {
    const run = await runCli(['pool', 'probe', B_ON_3000, '--json'], { dataDir: a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { address: B_ON_3000, port: 3000, poolProtocol: 2, pairable: true });
  });

  it('reports an older protocol up front, and pairing by address with it sends no request', async () => {
    const probe = await runCli(['pool', 'probe', OLD_HUB], { dataDir: a.dataDir });
    assert.equal(probe.code, 0, probe.stderr);
    assert.match(probe.stdout, /pool protocol 1: too old to pair by address/);
    const pair = await runCli(['pool', 'pair', OLD_HUB, '--pin', '123456', '--yes'], { dataDir: a.dataDir });
    assert.equal(pair.code, 1);
    assert.match(pair.stderr, /speaks pool protocol 1.*pair with it by its MagicDNS name instead.*HUB_ERR_PEER_PROTOCOL_TOO_OLD/);
    assert.ok(!oldSeen.some((s) => s.startsWith('POST')), `no pairing request reached the old Hub: ${oldSeen.join(', ')}`);
    assert.deepEqual(await rowsOf(a), []);
  });

  it('pairs by address with a PIN: the answer names the Hub, and the walkthrough ends connected', async () => {
    const minted = await runCli(['pool', 'pairing-pin', '--json', '--yes'], { dataDir: b.dataDir });
    const pin = (JSON.parse(minted.stdout) as { pin: string }).pin;
    const run = await runCli(['pool', 'pair', `${B_ADDRESS}:5002`, '--pin', pin, '--yes'], { dataDir: a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /it accepted the PIN and named itself hub-b\.tail0\.ts\.net/);
    assert.match(run.stdout, /cihub pool approve hub-a\.tail0\.ts\.net/);
    const [row] = await rowsOf(a);
    assert.equal(row?.nodeFqdn, B, 'the row is keyed on the name, not the address');
    assert.equal(row?.pinVerified, true);
    assert.ok(!JSON.stringify(await rowsOf(a)).includes(B_ADDRESS), 'the address is not kept');

    const approve = await runCli(['pool', 'approve', A, '--yes'], { dataDir: b.dataDir });
    assert.equal(approve.code, 0, approve.stderr);
    await eventually(async () => (await rowsOf(a)).find((p) => p.nodeFqdn === B && p.status === 'connected'), 'hub-a to show hub-b connected', 10_000);
  });

  it('gives whoever overheard a pairing by address nothing to confirm it with: the token it carried is refused', async () => {
    const minted = await runCli(['pool', 'pairing-pin', '--json', '--yes'], { dataDir: b.dataDir });
    const pin = (JSON.parse(minted.stdout) as { pin: string }).pin;
    const run = await runCli(['pool', 'pair', `${OVERHEARD_B}:5002`, '--pin', pin, '--yes'], { dataDir: a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    const bodies = overheard
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as { token?: string; nodeUuid?: string; publicKey?: string });
    const sent = bodies.find((body) => typeof body.token === 'string');
    const answered = bodies.find((body) => body.token === undefined && typeof body.publicKey === 'string');
    assert.ok(sent?.token, `the request went by with its token: ${overheard.join(' | ')}`);
    assert.ok(answered?.nodeUuid && answered.publicKey, 'hub-b named itself, and its key, in the answer');

    // The eavesdropper confirms in hub-b's name with the token and the identity it overheard.
    const forged = await request(`${a.url}/api/inference/pool/pair/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sent.token}`, 'x-hub-pool-peer': B },
      body: JSON.stringify({ token: randomBytes(32).toString('base64url'), nodeUuid: answered.nodeUuid, publicKey: answered.publicKey }),
    });
    await forged.body.dump();
    assert.equal(forged.statusCode, 401);
    assert.equal((await rowsOf(a)).find((p) => p.nodeFqdn === B)?.status, 'pending', 'only hub-b, signing, can confirm it');
  });

  it('needs a PIN to pair by address, and sends nothing without one', async () => {
    const run = await runCli(['pool', 'pair', B_ADDRESS, '--yes'], { dataDir: a.dataDir });
    assert.equal(run.code, 2, 'a usage error');
    assert.match(run.stderr, /^Pairing by address needs --pin/);
    assert.deepEqual(await rowsOf(b), []);
  });

  it('refuses a wrong PIN with the fix, and leaves no row here', async () => {
    await runCli(['pool', 'pairing-pin', '--yes'], { dataDir: b.dataDir });
    const run = await runCli(['pool', 'pair', `${B_ADDRESS}:5002`, '--pin', '000000', '--yes'], { dataDir: a.dataDir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /refused the PIN|refused the pairing PIN/);
    assert.deepEqual(await rowsOf(a), []);
    // The phrase the docs tell the operator to search the log for, with the address it came from.
    const logs = await runCli(['logs'], { dataDir: a.dataDir });
    assert.ok(logs.stdout.includes(`the Hub at ${B_ADDRESS}:5002 refused the pairing PIN`), logs.stdout.slice(-2000));
  });

  it('logs a declined request in the words the docs tell the operator to search for', async () => {
    const minted = await runCli(['pool', 'pairing-pin', '--json', '--yes'], { dataDir: b.dataDir });
    const pin = (JSON.parse(minted.stdout) as { pin: string }).pin;
    assert.equal((await runCli(['pool', 'disable', '--yes'], { dataDir: b.dataDir })).code, 0);
    try {
      const run = await runCli(['pool', 'pair', `${B_ADDRESS}:5002`, '--pin', pin, '--yes'], { dataDir: a.dataDir });
      assert.equal(run.code, 1);
      // The far Hub's "this Hub" is quoted as its words, not left to read as the operator's own Hub.
      assert.match(run.stderr, /declined the pairing request \(HTTP 503\); in its own words: "Hub Pool is switched off on this Hub/);
      const logs = (await runCli(['logs'], { dataDir: a.dataDir })).stdout;
      assert.ok(logs.includes('declined pairing request') && logs.includes(`the Hub at ${B_ADDRESS}:5002 declined the pairing request`), logs.slice(-2000));
    } finally {
      assert.equal((await runCli(['pool', 'enable', '--yes'], { dataDir: b.dataDir })).code, 0);
    }
  });

  it('says, when no Hub answers at an address, that the other Hub must listen beyond loopback for the pairing', async () => {
    const run = await runCli(['pool', 'probe', LOOPBACK_ONLY_HUB], { dataDir: a.dataDir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no Hub answered at 192\.168\.77\.5 \(5002: ECONNREFUSED; 3000: ECONNREFUSED\)/);
    assert.match(run.stderr, /listens on 127\.0\.0\.1 only unless its HUB_HOST says otherwise/);
    assert.match(run.stderr, /restart the other Hub with HUB_HOST=0\.0\.0\.0, which this machine can reach and which keeps 127\.0\.0\.1 for Tailscale Serve/);
    assert.match(run.stderr, /\(HUB_HOST=192\.168\.77\.5 alone would leave Serve unable to reach it\)/);
    assert.match(run.stderr, /give it as 192\.168\.77\.5:<port> \(HUB_ERR_NO_HUB_AT_ADDRESS\)\.$/m);
  });

  it('probes an IPv6 address, bracketed with a port or bare, and names it with its port in brackets', async () => {
    const bracketed = await runCli(['pool', 'probe', `[${B_IPV6}]:5002`], { dataDir: a.dataDir });
    assert.equal(bracketed.code, 0, bracketed.stderr);
    assert.match(bracketed.stdout, /^A Hub answers at \[fd7a:115c:a1e0::b2\]:5002 \(pool protocol 2\)\./);
    assert.match(bracketed.stdout, /cihub pool pair \[fd7a:115c:a1e0::b2\]:5002 --pin <the six digits>/);
    const bare = await runCli(['pool', 'probe', B_IPV6], { dataDir: a.dataDir });
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(bare.stdout, /^A Hub answers at \[fd7a:115c:a1e0::b2\]:5002 \(pool protocol 2\)\./);
    assert.match(bare.stdout, /cihub pool pair fd7a:115c:a1e0::b2 --pin <the six digits>/);
  });

  it('pairs by an IPv6 address, and logs a declined request at that address with its port in brackets', async () => {
    const minted = await runCli(['pool', 'pairing-pin', '--json', '--yes'], { dataDir: b.dataDir });
    const pin = (JSON.parse(minted.stdout) as { pin: string }).pin;
    assert.equal((await runCli(['pool', 'disable', '--yes'], { dataDir: b.dataDir })).code, 0);
    try {
      const declined = await runCli(['pool', 'pair', B_IPV6, '--pin', pin, '--yes'], { dataDir: a.dataDir });
      assert.equal(declined.code, 1);
      const logs = (await runCli(['logs'], { dataDir: a.dataDir })).stdout;
      assert.ok(logs.includes(`the Hub at [${B_IPV6}]:5002 declined the pairing request`), logs.slice(-2000));
    } finally {
      assert.equal((await runCli(['pool', 'enable', '--yes'], { dataDir: b.dataDir })).code, 0);
    }
    const run = await runCli(['pool', 'pair', `[${B_IPV6}]:5002`, '--pin', pin, '--yes'], { dataDir: a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /it accepted the PIN and named itself hub-b\.tail0\.ts\.net/);
    assert.equal((await rowsOf(a))[0]?.nodeFqdn, B, 'the row is keyed on the name, not the address');
  });

  it('says, when no Hub answers at an IPv6 address, that the other Hub needs HUB_HOST=::, since 0.0.0.0 takes IPv4 alone', async () => {
    const run = await runCli(['pool', 'probe', LOOPBACK_ONLY_IPV6], { dataDir: a.dataDir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no Hub answered at fd7a:115c:a1e0::b5 \(5002: ECONNREFUSED; 3000: ECONNREFUSED\)/);
    assert.match(run.stderr, /restart the other Hub with HUB_HOST=::, which this machine can reach and which keeps 127\.0\.0\.1 for Tailscale Serve/);
    assert.match(run.stderr, /give it as \[fd7a:115c:a1e0::b5\]:<port> \(HUB_ERR_NO_HUB_AT_ADDRESS\)\.$/m);
  });

  const refusals: [string, RegExp][] = [
    ['127.0.0.1:5002', /127\.0\.0\.1 is loopback/],
    ['[::1]:5002', /::1 is loopback/],
    ['169.254.169.254', /169\.254\.169\.254 is a cloud metadata endpoint/],
    ['169.254.1.1', /is link-local/],
    ['fe80::1', /is link-local/],
    ['8.8.8.8', /8\.8\.8\.8 is a public address/],
    ['localhost:5002', /localhost resolves to (127\.0\.0\.1|::1), and is loopback/],
    ['http://192.168.1.2/', /is not an address/],
  ];
  for (const [address, why] of refusals) {
    it(`refuses to probe ${address}`, async () => {
      const run = await runCli(['pool', 'probe', address], { dataDir: a.dataDir });
      assert.equal(run.code, 1);
      assert.match(run.stderr, why);
      assert.match(run.stderr, /HUB_ERR_ADDRESS_REFUSED/);
    });
  }

  it('refuses to pair with a loopback address where a Hub does answer', async () => {
    const port = new URL(b.url).port;
    await runCli(['pool', 'pairing-pin', '--yes'], { dataDir: b.dataDir });
    const run = await runCli(['pool', 'pair', `127.0.0.1:${port}`, '--pin', '123456', '--yes'], { dataDir: a.dataDir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /127\.0\.0\.1 is loopback/);
    assert.deepEqual(await rowsOf(b), [], 'hub-b received no request');
  });
});
