/**
 * Advice that is right in every state (issue 11, item 4): the rarer pairing states, each set up
 * between two real Hubs on loopback and read through the real CLI, with the printed fix checked
 * and, where it is cheap, followed. Between the Hubs sits a small proxy in this process, so a
 * test can drop the approval's call back (half paired) or hold a request on its way (two
 * requests that cross). Nothing is mocked but the dial map.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PeerView } from '../../src/peers/peer-view.js';
import { eventually, freePort, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

const A = 'hub-a.tail0.ts.net';
const B = 'hub-b.tail0.ts.net';
const X = 'hub-x.tail0.ts.net';
const SUFFIX = 'tail0.ts.net';
const re = (s: string): string => s.replaceAll('.', '\\.');

type Rule = 'pass' | 'drop' | 'hold';

/** Forwards to one Hub; a rule per request may drop it (the connection is cut) or hold it until release(). */
class GateProxy {
  rule: (method: string, path: string) => Rule = () => 'pass';
  readonly #held: (() => void)[] = [];
  #server: Server | null = null;
  constructor(readonly target: number) {}

  get held(): number {
    return this.#held.length;
  }

  async start(port: number): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const forward = () => {
          const up = httpRequest({ host: '127.0.0.1', port: this.target, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          });
          up.on('error', () => res.destroy());
          up.end(Buffer.concat(chunks));
        };
        const rule = this.rule(req.method ?? '', (req.url ?? '').split('?')[0] ?? '');
        if (rule === 'drop') return res.destroy();
        if (rule === 'hold') return this.#held.push(forward);
        forward();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
    assert.equal((this.#server.address() as AddressInfo).port, port);
  }

  release(): void {
    for (const go of this.#held.splice(0)) go();
  }

  async close(): Promise<void> {
    this.release();
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

async function ok(hub: HubProcess, ...args: string[]): Promise<string> {
  const res = await runCli(args, { dataDir: hub.dataDir });
  assert.equal(res.code, 0, `cihub ${args.join(' ')} failed:\n${res.stderr}`);
  return res.stdout;
}

/** `cihub pool approve` whose call back failed: the steps on stdout (returned), exit 1 and one sentence on stderr. */
async function halfPaired(approver: HubProcess, requester: string): Promise<string> {
  const res = await runCli(['pool', 'approve', requester, '--yes'], { dataDir: approver.dataDir });
  assert.equal(res.code, 1, `approve should fail half paired:\n${res.stdout}`);
  assert.match(res.stderr, /is half paired: approved here, but the call back to it failed\./);
  return res.stdout;
}

async function fails(hub: HubProcess, ...args: string[]): Promise<string> {
  const res = await runCli(args, { dataDir: hub.dataDir });
  assert.equal(res.code, 1, `cihub ${args.join(' ')} should fail:\n${res.stdout}`);
  return res.stderr;
}

async function rowsOf(hub: HubProcess): Promise<PeerView[]> {
  const { status, json } = await hub.api<{ peers: PeerView[] }>('GET', '/api/inference/pool/peers');
  assert.equal(status, 200);
  return json.peers;
}

const pinOf = async (hub: HubProcess): Promise<string> => {
  const pin = /Pairing PIN: (\d{6})$/m.exec(await ok(hub, 'pool', 'pairing-pin', '--yes'))?.[1];
  assert.ok(pin);
  return pin;
};

describe('advice that is right in every state', () => {
  let a: HubProcess;
  let b: HubProcess;
  /** What B dials for A, and what A dials for B. */
  let toA: GateProxy;
  let toB: GateProxy;

  before(async () => {
    const [pa, pb, pToA, pToB] = [await freePort(), await freePort(), await freePort(), await freePort()];
    toA = new GateProxy(pa);
    toB = new GateProxy(pb);
    await Promise.all([toA.start(pToA), toB.start(pToB)]);
    const env = (name: string, origins: string) => ({ HUB_NODE_FQDN: name, HUB_TAILNET_SUFFIX: SUFFIX, HUB_POOL_PEER_ORIGINS: origins });
    [a, b] = await startTogether([
      // hub-x is another name that reaches B: the Hub answering there names itself B.
      startHubProcess({ port: pa, env: env(A, `${A}=http://127.0.0.1:${pa},${B}=http://127.0.0.1:${pToB},${X}=http://127.0.0.1:${pToB}`) }),
      startHubProcess({ port: pb, env: env(B, `${B}=http://127.0.0.1:${pb},${A}=http://127.0.0.1:${pToA}`) }),
    ]);
    for (const hub of [a, b]) assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 10 })).status, 200);
  });
  after(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await Promise.all([toA?.close(), toB?.close()]);
  });
  beforeEach(async () => {
    assert.deepEqual(await rowsOf(a), []);
    assert.deepEqual(await rowsOf(b), []);
  });
  afterEach(async () => {
    toA.rule = () => 'pass';
    toB.rule = () => 'pass';
    toA.release();
    toB.release();
    for (const hub of [a, b]) for (const p of await rowsOf(hub)) await hub.api('DELETE', `/api/inference/pool/peers/${p.id}`);
  });

  it('half paired: both Hubs name the state and the fix (both unpairs), not legacy auth, "rejoins by itself" or the clocks', async () => {
    toA.rule = (method, path) => (method === 'POST' && path.endsWith('/pair/confirm') ? 'drop' : 'pass');
    await ok(a, 'pool', 'pair', B, '--yes');
    assert.match(await halfPaired(b, A), /Half paired: /);

    // B has probed A since (A refuses it: its request still waits), which is where the old advice went wrong.
    await eventually(async () => (await rowsOf(b))[0]?.probeFailure !== null, "B's first failed probe of A");
    const onB = await ok(b, 'pool', 'status');
    assert.ok(onB.includes('half paired: this Hub approved its request, but the approval never reached it'), onB);
    assert.ok(onB.includes(`cihub pool unpair ${A} here, and cihub pool unpair ${B} on ${A}`), onB);
    assert.match(onB, new RegExp(`${re(A)}\\s+\\S+\\s+not confirmed`));
    for (const wrong of ['bearer (legacy auth)', 'rejoins by itself', 'compare the two clocks', 'Legacy auth', 'is safe'])
      assert.ok(!onB.includes(wrong), `B must not say ${JSON.stringify(wrong)}:\n${onB}`);

    // A sees B calling as paired while its own request waits: half paired, seen from the requester.
    await eventually(async () => (await rowsOf(a))[0]?.pairingProblem?.kind === 'half_paired_there', 'A to see B acting on an approval it never received');
    const onA = await ok(a, 'pool', 'status');
    assert.ok(onA.includes("half paired: it approved this Hub's request, but the approval never arrived here"), onA);
    assert.ok(onA.includes(`cihub pool unpair ${B} here, and cihub pool unpair ${A} on ${B}`), onA);

    // The fix as printed: remove both halves, then pair again; with the call back getting through it pairs.
    await ok(b, 'pool', 'unpair', A, '--yes');
    if ((await rowsOf(a)).length > 0) await ok(a, 'pool', 'unpair', B, '--yes');
    toA.rule = () => 'pass';
    await ok(a, 'pool', 'pair', B, '--yes');
    assert.match(await ok(b, 'pool', 'approve', A, '--yes'), /confirmed the pairing/);
    assert.equal((await rowsOf(a))[0]?.status, 'connected');
  });

  it("half paired: the approver's log names the requester and the reason, the call back is never retried, and the requester turns unreachable", async () => {
    let callbacks = 0;
    toA.rule = (method, path) => {
      if (method !== 'POST' || !path.endsWith('/pair/confirm')) return 'pass';
      callbacks += 1;
      return 'drop';
    };
    await ok(a, 'pool', 'pair', B, '--yes');
    assert.match(await halfPaired(b, A), /Half paired: /);

    const logs = await ok(b, 'logs', '--json');
    const line = logs.split('\n').find((l) => l.includes('pairing confirmed locally but callback to'));
    assert.ok(line, `B's log records the failed call back:\n${logs}`);
    assert.match(line, new RegExp(`\\[HubPool\\] pairing confirmed locally but callback to ${re(A)} failed: \\S`));

    // A refuses B's probes (its own request still waits), so B counts failures until it marks A
    // unreachable; a retry of the call back, had there been one, would have gone out by then.
    const row = await eventually(
      async () => {
        const r = (await rowsOf(b))[0];
        return r?.status === 'unreachable' ? r : null;
      },
      'B to mark the requester unreachable',
      180_000,
    );
    assert.equal(row.consecutiveFailures, 3);
    assert.equal(callbacks, 1);
  });

  it('a stale row on the receiver: a PIN request is refused with the unpair to run there, the PIN is not spent, and the same PIN then works', async () => {
    // B approves a request A cancelled without telling it: B is left holding a row for A, A none.
    await ok(a, 'pool', 'pair', B, '--yes');
    await ok(a, 'pool', 'unpair', B, '--yes');
    await halfPaired(b, A);
    assert.deepEqual(await rowsOf(a), []);

    const pin = await pinOf(b);
    const refused = await fails(a, 'pool', 'pair', B, '--pin', pin, '--yes');
    assert.match(refused, new RegExp(`cihub pool unpair ${re(A)} on ${re(B)}`));
    assert.match(refused, /same PIN/);
    assert.doesNotMatch(refused, /older Hub|approve/);
    assert.deepEqual(await rowsOf(a), [], 'nothing is left waiting on the requester');
    // The sending Hub's log carries the phrase the docs tell the operator to search for.
    const logs = await ok(a, 'logs');
    assert.ok(logs.includes('declined the pairing request') && logs.includes('declined pairing request'), logs.slice(-2000));

    await ok(b, 'pool', 'unpair', A, '--yes');
    assert.match(await ok(a, 'pool', 'pair', B, '--pin', pin, '--yes'), /^PIN verified: /m);
    assert.match(await ok(b, 'pool', 'approve', A, '--yes'), /confirmed the pairing/);
  });

  it('a PIN answer from a Hub under another name than the one asked: withdrawn there, nothing left, and the name to pair by', async () => {
    const pin = await pinOf(b);
    const refused = await fails(a, 'pool', 'pair', X, '--pin', pin, '--yes');
    assert.match(refused, new RegExp(`the Hub answering at ${re(X)} calls itself ${re(B)}; The request was withdrawn there`, 'i'));
    assert.ok(refused.includes(`cihub pool pair ${B} --pin <digits>`), refused);
    assert.doesNotMatch(refused, /older Hub/);
    assert.deepEqual(await rowsOf(a), []);
    assert.deepEqual(await rowsOf(b), [], 'the request B took with the PIN was withdrawn');
  });

  it('a request without a PIN to a receiver holding a stale row says what to do if the request never shows there', async () => {
    await ok(a, 'pool', 'pair', B, '--yes');
    await ok(a, 'pool', 'unpair', B, '--yes');
    // A was reached and refused: no advice about HTTPS, which is not what failed.
    const steps = await halfPaired(b, A);
    assert.match(steps, new RegExp(`${re(A)} answered and refused the confirmation: it most likely no longer holds this request`));
    assert.doesNotMatch(steps, /https:\/\//);
    const sent = await ok(a, 'pool', 'pair', B, '--yes');
    assert.ok(sent.includes(`If \`cihub pool peers\` on ${B} does not list this request`), sent);
    assert.ok(sent.includes(`cihub pool unpair ${A} on ${B}`), sent);
  });

  it('both Hubs send a request: the second is told to approve the first, and requests that crossed are named with the fix on both', async () => {
    await ok(a, 'pool', 'pair', B, '--yes');
    const refused = await fails(b, 'pool', 'pair', A, '--yes');
    assert.match(
      refused,
      new RegExp(`has already asked to pair with this Hub: approve its request instead of sending one back \\(cihub pool approve ${re(A)}\\)`),
    );
    assert.doesNotMatch(refused, /unpair/);
    assert.match(await ok(b, 'pool', 'approve', A, '--yes'), /confirmed the pairing/);
    for (const hub of [a, b]) for (const p of await rowsOf(hub)) await hub.api('DELETE', `/api/inference/pool/peers/${p.id}`);

    // Crossed: A's request is held on its way until B has sent its own, so each finds the other's row.
    toB.rule = (method, path) => (method === 'POST' && path.endsWith('/pair/request') ? 'hold' : 'pass');
    const fromA = ok(a, 'pool', 'pair', B, '--yes');
    await eventually(() => toB.held === 1, "A's request to be held on its way to B");
    await ok(b, 'pool', 'pair', A, '--yes');
    toB.rule = () => 'pass';
    toB.release();
    await fromA;
    for (const [hub, other, me] of [
      [a, B, A],
      [b, A, B],
    ] as const) {
      await eventually(async () => (await rowsOf(hub))[0]?.pairingProblem?.kind === 'crossed_requests', `${me} to see the requests crossed`);
      const text = await ok(hub, 'pool', 'status');
      assert.ok(text.includes("the requests crossed: it sent this Hub a request too, and each Hub sets the other's aside"), text);
      assert.ok(
        text.includes(`cancel both requests (cihub pool unpair ${other} here, and cihub pool unpair ${me} on ${other}), then pair again from one Hub only`),
        text,
      );
    }
  });

  it("a PIN request refused because this Hub's own request to the sender waits is no crossing: the sender keeps nothing", async () => {
    // A's request without a PIN is held on its way, so B holds no row when it sends A a PIN request.
    toB.rule = (method, path) => (method === 'POST' && path.endsWith('/pair/request') ? 'hold' : 'pass');
    const fromA = ok(a, 'pool', 'pair', B, '--yes');
    await eventually(() => toB.held === 1, "A's request to be held on its way to B");
    const refused = await fails(b, 'pool', 'pair', A, '--pin', await pinOf(a), '--yes');
    assert.match(refused, /409/);
    assert.deepEqual(await rowsOf(b), [], 'B kept no request of its own');
    toB.rule = () => 'pass';
    toB.release();
    await fromA;
    // Marked crossed, A's status told its operator to cancel a request B never held.
    const [row] = await rowsOf(a);
    assert.equal(row?.pairingProblem ?? null, null, JSON.stringify(row));
  });

  it("a peer disabled: neither Hub's headline says routing can use it, and each names the switch", async () => {
    await ok(a, 'pool', 'pair', B, '--yes');
    await ok(b, 'pool', 'approve', A, '--yes');
    await eventually(async () => (await rowsOf(b))[0]?.acceptingWork === true && (await rowsOf(a))[0]?.acceptingWork === true, 'both Hubs to poll each other');
    await ok(a, 'pool', 'peer-disable', B, '--yes');

    const onA = await ok(a, 'pool', 'status');
    assert.match(onA, /^Hub Pool: on, but no peer can take work now/m);
    assert.ok(onA.includes(`${B} is disabled here: no work goes to it or comes from it (cihub pool peer-enable ${B} undoes this)`), onA);
    assert.doesNotMatch(onA, /no peer connected|routing is active/);

    await eventually(async () => (await rowsOf(b))[0]?.acceptingWork === false, 'B to see A not taking its work');
    const onB = await ok(b, 'pool', 'status');
    assert.match(onB, /^Hub Pool: on, but no peer can take work now/m);
    assert.ok(onB.includes(`${A} is not taking work from this Hub`), onB);
    assert.doesNotMatch(onB, /routing is active|routing across the pool/);
  });

  it('says when turning on poolRequireSignedPeers has become safe: once every peer signs', async () => {
    await ok(a, 'pool', 'pair', B, '--pin', await pinOf(b), '--yes');
    await ok(b, 'pool', 'approve', A, '--yes');
    for (const [hub, other] of [
      [a, B],
      [b, A],
    ] as const) {
      await eventually(
        async () => (await rowsOf(hub)).some((p) => p.nodeFqdn === other && p.authMode === 'signed' && p.lastSeenAt !== null),
        `${other} signed and polled`,
      );
      const text = await ok(hub, 'pool', 'status');
      assert.ok(text.includes('every peer signs now, so turning on poolRequireSignedPeers is safe (cihub pool set poolRequireSignedPeers true)'), text);
    }
  });
});
