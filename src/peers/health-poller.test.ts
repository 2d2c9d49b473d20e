import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent } from 'undici';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import { openDatabase } from '../store/database.js';
import { PeerStore, type PeerRow } from '../store/peers.js';
import { Background } from '../util/background.js';
import { ManualClock, systemClock } from '../util/clock.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { HealthPoller } from './health-poller.js';
import { PeerClient, type CredentialGap } from './peer-client.js';
import { peerView } from './peer-view.js';
import { usablePeers } from './usable-peers.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

const KEY = 'A'.repeat(43);

const silentPeer = { call: async () => ({ ok: false, error: 'no answer', auth: 'none' }) } as unknown as PeerClient;

/** A poller over a real store; by default the peer never answers (the rule under test runs before any probe). */
function setup(client: PeerClient = silentPeer, pollSeconds: () => number = () => 30) {
  const clock = new ManualClock();
  const store = new PeerStore(openDatabase(join(scratchDir('cihub-poller-'), 'hub.db')));
  const pairing = { sweep: () => [], notesOn: () => ({ approvedThereAt: null, confirming: false }) } as unknown as PairingService;
  const identity = {
    load: async () => ({ ok: false, error: 'unused', nodeUuid: null, publicKey: null }),
    unsealToken: async () => 'bearer-token',
  } as unknown as NodeIdentity;
  const poller = new HealthPoller({
    store,
    client,
    pairing,
    identity,
    pollSeconds,
    clock,
    logger: pino({ level: 'silent' }),
    forwardsTo: () => 0,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
  });
  const add = (name: string, extra: Partial<PeerRow>): PeerRow => {
    const row = store.insert({
      nodeFqdn: name,
      direction: 'outbound',
      status: 'connected',
      peerNodeUuid: `00000000-0000-4000-8000-00000000000${name.length % 10}`,
      peerPublicKey: KEY,
      pinVerified: false,
      issuedTokenHash: 'h',
      presentTokenSealed: 's',
      createdAt: new Date(clock.nowMs()).toISOString(),
      expiresAt: null,
    });
    return store.update(row.id, extra)!;
  };
  return { clock, store, poller, add };
}

describe('HealthPoller: the bearer grace window', () => {
  it('unpins a key learned from a request when the window closes with no signed request seen', async () => {
    const { clock, store, poller, add } = setup();
    const row = add('a.tail0.ts.net', { bearerGraceUntil: new Date(clock.nowMs() + 60_000).toISOString() });
    await poller.tick();
    assert.equal(store.get(row.id)?.peerPublicKey, KEY, 'kept while the window is open');
    clock.advance(60_000);
    await poller.tick();
    const after = store.get(row.id)!;
    assert.deepEqual([after.peerNodeUuid, after.peerPublicKey, after.bearerGraceUntil], [null, null, null]);
    assert.equal(after.presentTokenSealed, 's', 'the bearer pairing it rolls back to is kept');
  });

  it('keeps the key of a peer that was seen signing, whatever the window says', async () => {
    const { clock, store, poller, add } = setup();
    const row = add('bb.tail0.ts.net', { bearerGraceUntil: new Date(clock.nowMs() - 1).toISOString(), signedSeenAt: new Date(clock.nowMs()).toISOString() });
    await poller.tick();
    assert.equal(store.get(row.id)?.peerPublicKey, KEY);
  });
});

describe('HealthPoller: renames a signed peer presented', () => {
  it('applies one to an approved pairing and none to a request still waiting for approval', async () => {
    const { store, poller, add } = setup();
    const paired = add('cc.tail0.ts.net', {});
    const waiting = add('ddd.tail0.ts.net', { direction: 'inbound', status: 'pending' });
    poller.noteRename(paired.id, 'cc-moved.tail0.ts.net');
    poller.noteRename(waiting.id, 'trusted.tail0.ts.net');
    await poller.tick();
    assert.equal(store.get(paired.id)?.nodeFqdn, 'cc-moved.tail0.ts.net');
    assert.equal(store.get(waiting.id)?.nodeFqdn, 'ddd.tail0.ts.net');
  });
});

/**
 * A poller whose peer answers a good capabilities document when `answer()` is called, one probe at a time.
 * `inFlightRequests` is what the peer reports; `forwardsTo` is this Hub's own count of forwards open to it.
 */
function answering(inFlightRequests = 0, forwardsTo: (peerName: string) => number = () => 0) {
  const clock = new ManualClock();
  const store = new PeerStore(openDatabase(join(scratchDir('cihub-poller-'), 'hub.db')));
  const waiting: (() => void)[] = [];
  /** What the peer answers instead of its capabilities, when set. */
  let instead: unknown = null;
  const client = {
    call: () =>
      new Promise((resolve) =>
        waiting.push(() =>
          resolve(
            instead ?? {
              ok: true,
              status: 200,
              headers: {},
              json: {
                nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d',
                hardwareTier: null,
                backends: [{ kind: 'ollama', models: ['m'] }],
                inFlightRequests,
                acceptingWork: true,
              },
              auth: 'signed',
            },
          ),
        ),
      ),
  } as unknown as PeerClient;
  /** Rows whose approval's confirmation is out, as the pairing service reports them. */
  const confirming = new Set<string>();
  const pairing = {
    sweep: () => [],
    notesOn: (id: string) => ({ approvedThereAt: null, confirming: confirming.has(id) }),
  } as unknown as PairingService;
  const identity = { load: async () => ({ ok: false, error: 'unused' }) } as unknown as NodeIdentity;
  const poller = new HealthPoller({
    store,
    client,
    pairing,
    identity,
    pollSeconds: () => 30,
    clock,
    logger: pino({ level: 'silent' }),
    forwardsTo,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
  });
  const row = store.insert({
    nodeFqdn: 'b.tail0.ts.net',
    direction: 'inbound',
    status: 'connected',
    peerNodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d',
    peerPublicKey: KEY,
    pinVerified: true,
    issuedTokenHash: null,
    presentTokenSealed: null,
    createdAt: new Date(clock.nowMs()).toISOString(),
    expiresAt: null,
  });
  /** Starts a probe; returns a function that lets the peer answer and waits for the probe to finish. */
  const probe = () => {
    const done = poller.probe(store.get(row.id)!);
    return async () => {
      while (waiting.length === 0) await new Promise((r) => setImmediate(r));
      waiting.shift()!();
      await done;
    };
  };
  /** Probes started and not yet answered. */
  const unanswered = () => waiting.length;
  const answerNext = () => waiting.shift()!();
  const answerWith = (answer: unknown) => void (instead = answer);
  return { clock, store, poller, row, probe, unanswered, answerNext, answerWith, confirming };
}

describe('HealthPoller: a peer that said it is leaving', () => {
  it('is out at once (no snapshot, unreachable, no failure counted) and back on its next good poll', async () => {
    const { clock, store, poller, row, probe } = answering();
    await probe()();
    assert.ok(poller.health(row.id).capabilities !== null);
    poller.noteLeft(store.get(row.id)!);
    assert.equal(poller.health(row.id).capabilities, null);
    assert.ok(poller.health(row.id).leftAt);
    assert.deepEqual([store.get(row.id)?.status, store.get(row.id)?.consecutiveFailures], ['unreachable', 0]);
    clock.advance(30_000);
    await probe()();
    assert.equal(store.get(row.id)?.status, 'connected');
    assert.equal(poller.health(row.id).leftAt, null);
    assert.ok(poller.health(row.id).capabilities !== null);
  });

  it('is back, refusing this Hub, when it answers with an identity refusal after the notice: the notice no longer speaks for it', async () => {
    const { clock, store, poller, row, probe, answerWith } = answering();
    await probe()();
    poller.noteLeft(store.get(row.id)!);
    clock.advance(30_000);
    answerWith({ ok: true, status: 401, headers: { 'x-hub-pool-refusal': 'identity-mismatch' }, json: null, auth: 'signed' });
    await probe()();
    assert.deepEqual([poller.health(row.id).leftAt, poller.health(row.id).probeFailure, store.get(row.id)?.status], [null, 'identity_changed', 'unreachable']);
  });

  it('an answer given before the notice does not take it back', async () => {
    const { clock, store, poller, row, probe } = answering();
    const answerLater = probe();
    clock.advance(1);
    poller.noteLeft(store.get(row.id)!);
    await answerLater();
    assert.equal(store.get(row.id)?.status, 'unreachable');
    assert.equal(poller.health(row.id).capabilities, null);
  });

  describe('when the wall clock is set back after the notice', () => {
    // The poll still began after the notice, by this process's own order of events.
    const cases: { name: string; answer: unknown; expected: [string | null, string | null, string | undefined] }[] = [
      { name: 'is back on its next good poll, rather than once the clock catches up', answer: null, expected: [null, null, 'connected'] },
      {
        name: 'an identity refusal on the next poll ends the notice',
        answer: { ok: true, status: 401, headers: { 'x-hub-pool-refusal': 'identity-mismatch' }, json: null, auth: 'signed' },
        expected: [null, 'identity_changed', 'unreachable'],
      },
    ];
    for (const c of cases)
      it(c.name, async () => {
        const { clock, store, poller, row, probe, answerWith } = answering();
        await probe()();
        poller.noteLeft(store.get(row.id)!);
        clock.advance(-2 * 60 * 60_000);
        if (c.answer !== null) answerWith(c.answer);
        await probe()();
        assert.deepEqual([poller.health(row.id).leftAt, poller.health(row.id).probeFailure, store.get(row.id)?.status], c.expected);
      });
  });

  it('a good poll settles a half pairing: the peer answered as paired after all', async () => {
    const { store, row, probe } = answering();
    store.update(row.id, { confirmFailedAt: new Date(0).toISOString() });
    await probe()();
    assert.equal(store.get(row.id)?.confirmFailedAt, null);
  });
});

describe('HealthPoller: the peer load a poll leaves for placement', () => {
  // A peer's published in-flight count includes the forwards this Hub had open to it when it
  // answered. The poller notes how many that was so the ranker can take them out again once they
  // finish; otherwise an idle peer reads busy until its next poll.
  it('reads a peer idle once the forward its snapshot counted has finished (the 2026-10-01 fleet retest: core-7 over beta-1)', async () => {
    let open = 1;
    const { clock, store, poller, probe } = answering(1, () => open);
    await probe()();
    const queueDepth = () =>
      usablePeers({
        store,
        health: (id) => poller.health(id),
        forwarded: () => open,
        origins: new Map(),
        nowMs: clock.nowMs(),
        pollSeconds: 30,
      })[0]?.queueDepth;
    assert.equal(queueDepth(), 1, 'while the forward is open the peer holds exactly that one request, not it counted twice');
    open = 0;
    assert.equal(queueDepth(), 0, 'the forward finished: nothing is left on the peer that the snapshot saw');
  });
});

/** Lets the probes a tick started reach the peer. */
const settle = async () => {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
};

describe('HealthPoller: a wall clock set back', () => {
  it('polls at the next tick instead of waiting for the clock to catch up with the old schedule', async () => {
    const { clock, poller, probe, unanswered, answerNext } = answering();
    await probe()();
    await poller.tick();
    assert.equal(unanswered(), 0, 'the next poll is a whole interval away');

    clock.advance(-10 * 60_000);
    const ticking = poller.tick();
    await settle();
    assert.equal(unanswered(), 1, 'polled at once, not ten minutes and an interval later');
    answerNext();
    await ticking;
    await poller.tick();
    assert.equal(unanswered(), 0, 'and then on its interval again');
  });
});

describe('HealthPoller: poolHealthPollSeconds changed while the Hub runs', () => {
  const DOCUMENT = {
    nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d',
    backends: [{ kind: 'ollama', models: ['m'] }],
    inFlightRequests: 0,
    acceptingWork: true,
  };

  /** A poller whose cadence the test sets, over a peer that answers at once; `polledAt` lists each probe's clock time. */
  function cadence(startSeconds: number) {
    let seconds = startSeconds;
    const polledAt: number[] = [];
    let clockNow = () => 0;
    const client = {
      call: async () => (polledAt.push(clockNow()), { ok: true, status: 200, headers: {}, json: DOCUMENT, auth: 'signed' }),
    } as unknown as PeerClient;
    const env = setup(client, () => seconds);
    clockNow = () => env.clock.nowMs();
    const row = env.add('a.tail0.ts.net', {});
    /** Ticks every 10 s (the setting's floor) for `forMs`, as the 1 s scheduler would see it. */
    const run = async (forMs: number) => {
      for (let waited = 0; waited < forMs; waited += 10_000) {
        env.clock.advance(10_000);
        await env.poller.tick();
      }
    };
    return { ...env, row, polledAt, run, set: (s: number) => (seconds = s) };
  }

  it('polls at the new cadence from the next poll after the setting is lowered', async () => {
    const { clock, poller, row, polledAt, run, set } = cadence(300);
    await poller.tick();
    const first = clock.nowMs();
    clock.advance(50_000);
    set(10);
    await run(100_000);
    assert.deepEqual(
      polledAt.map((t) => (t - first) / 1000),
      [0, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150],
      'the first tick 10 s or more after the last poll polls, not the one 300 s after it',
    );
    assert.ok(clock.nowMs() - poller.health(row.id).capabilitiesAtMs! <= 10_000, 'so the snapshot is never older than three polls at the new cadence');
  });

  it('moves the next poll out when the setting is raised, and never polls faster than it says', async () => {
    const { clock, poller, polledAt, run, set } = cadence(10);
    await poller.tick();
    const first = clock.nowMs();
    set(300);
    await run(900_000);
    assert.deepEqual(
      polledAt.map((t) => (t - first) / 1000),
      [0, 300, 600, 900],
    );
  });
});

describe('HealthPoller: a poll asked for while one is out', () => {
  // Regression: an approver's tick polled the requester while the confirm call was out, with the
  // row as it was before the key arrived; that probe's reschedule swallowed the pollSoon the
  // confirmation asked for, and the first signed request waited a whole interval (pairing-attacks flake).
  it('polls again at the next tick instead of a whole interval after the probe that was out', async () => {
    const { poller, row, store, unanswered, answerNext } = answering();
    const ticking = poller.tick();
    await settle();
    assert.equal(unanswered(), 1, 'the first tick probes the new peer');
    poller.pollSoon(store.get(row.id)!);
    answerNext();
    await ticking;
    const next = poller.tick();
    await settle();
    assert.equal(unanswered(), 1, 'the asked-for poll runs at the next tick');
    answerNext();
    await next;
    await poller.tick();
    assert.equal(unanswered(), 0, 'and then the interval holds again');
  });
});

describe('HealthPoller: a row this Hub has just approved', () => {
  // Marked connected before the confirmation reaches the requester, which answers a probe
  // meanwhile with 401 and warns of a half pairing (races audit, 2026-12-07).
  it('is not probed while its confirmation is out, and is at the first tick after', async () => {
    const { poller, row, unanswered, answerNext, confirming } = answering();
    confirming.add(row.id);
    await poller.tick();
    await settle();
    assert.equal(unanswered(), 0, 'no probe while the confirmation is out');
    confirming.delete(row.id);
    const ticking = poller.tick();
    await settle();
    assert.equal(unanswered(), 1, 'probed once it has been answered');
    answerNext();
    await ticking;
  });
});

describe('HealthPoller: a name that answers 200 with something other than a capabilities document', () => {
  const GOOD_DOCUMENT = {
    nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d',
    backends: [{ kind: 'ollama', models: ['m'] }],
    inFlightRequests: 0,
    acceptingWork: true,
  };
  /** What the peer's name answers 200 with, as a content type and a body. */
  interface Page {
    readonly type: string;
    readonly body: string;
  }
  const NOT_DOCUMENTS: readonly { name: string; page: Page }[] = [
    { name: 'an HTML page', page: { type: 'text/html', body: '<!doctype html><html><body>Some other app</body></html>' } },
    { name: 'an empty body', page: { type: 'application/json', body: '' } },
    { name: 'a JSON list', page: { type: 'application/json', body: '[]' } },
    { name: 'a bare string', page: { type: 'application/json', body: '"ok"' } },
  ];

  it('counts each as a failed probe: three in a row mark the peer unreachable, and the last trusted snapshot and half pairing stay', async () => {
    let page: Page = { type: 'application/json', body: JSON.stringify(GOOD_DOCUMENT) };
    const server = createServer((_req, res) => {
      res.setHeader('content-type', page.type);
      res.end(page.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dispatcher = new Agent();
    try {
      const client = new PeerClient({
        identity: { unsealToken: async () => 'bearer-token' } as unknown as NodeIdentity,
        selfName: async () => 'self.tail0.ts.net',
        origins: new Map([['a.tail0.ts.net', `http://127.0.0.1:${(server.address() as AddressInfo).port}`]]),
        dispatcher,
        nameDispatcher: dispatcher,
        settings: () => DEFAULT_SETTINGS,
        clock: systemClock,
      });
      const { clock, store, poller, add } = setup(client);
      const row = add('a.tail0.ts.net', { peerNodeUuid: null, peerPublicKey: null });
      await poller.probe(store.get(row.id)!);
      const trusted = poller.health(row.id);
      assert.equal(trusted.capabilities?.nodeUuid, '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d');
      const halfPaired = new Date(clock.nowMs()).toISOString();
      store.update(row.id, { confirmFailedAt: halfPaired });

      for (const [i, bad] of NOT_DOCUMENTS.entries()) {
        clock.advance(30_000);
        page = bad.page;
        await poller.probe(store.get(row.id)!);
        const after = store.get(row.id)!;
        const health = poller.health(row.id);
        assert.equal(after.consecutiveFailures, i + 1, `${bad.name} is a failure`);
        assert.equal(after.status, i + 1 < 3 ? 'connected' : 'unreachable', `status after ${bad.name}`);
        assert.equal(health.probeFailure, 'unreachable');
        assert.equal(health.capabilities, trusted.capabilities, 'the last good document is kept');
        assert.equal(health.capabilitiesAtMs, trusted.capabilitiesAtMs, 'and its age is not refreshed');
        assert.equal(after.confirmFailedAt, halfPaired, 'a page that is not the peer does not settle a half pairing');
      }

      clock.advance(30_000);
      page = { type: 'application/json', body: JSON.stringify(GOOD_DOCUMENT) };
      await poller.probe(store.get(row.id)!);
      assert.deepEqual([store.get(row.id)?.status, store.get(row.id)?.confirmFailedAt, poller.health(row.id).probeFailure], ['connected', null, null]);
    } finally {
      await dispatcher.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('marks a peer unreachable whose name now serves a web page, dialled for real', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><html><body>Some other app</body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dispatcher = new Agent();
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new PeerClient({
        identity: { unsealToken: async () => 'bearer-token' } as unknown as NodeIdentity,
        selfName: async () => 'self.tail0.ts.net',
        origins: new Map([['web.tail0.ts.net', origin]]),
        dispatcher,
        nameDispatcher: dispatcher,
        settings: () => DEFAULT_SETTINGS,
        clock: systemClock,
      });
      const { clock, store, poller, add } = setup(client);
      const row = add('web.tail0.ts.net', { peerNodeUuid: null, peerPublicKey: null });
      for (let i = 0; i < 3; i++) {
        await poller.probe(store.get(row.id)!);
        clock.advance(30_000);
      }
      assert.deepEqual(
        [store.get(row.id)?.status, poller.health(row.id).probeFailure, poller.health(row.id).capabilities],
        ['unreachable', 'unreachable', null],
      );
    } finally {
      await dispatcher.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('HealthPoller: a probe this Hub cannot authenticate, so never sends', () => {
  const DOCUMENT = { nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d', backends: [], inFlightRequests: 0, acceptingWork: true };
  const cases: readonly {
    name: string;
    identity: Partial<NodeIdentity>;
    requireSigned: boolean;
    row: Partial<PeerRow>;
    gap: CredentialGap;
    fix: RegExp;
  }[] = [
    {
      name: 'a signed pairing while its own key cannot be opened',
      identity: { load: async () => ({ ok: false, error: 'the key cannot be unsealed', cause: 'key-unopenable', nodeUuid: 'n', publicKey: KEY }) },
      requireSigned: false,
      row: {},
      gap: 'own_key_unusable',
      fix: /rotate-identity/,
    },
    {
      name: 'a bearer pairing whose sealed token cannot be opened',
      identity: { unsealToken: async () => null },
      requireSigned: false,
      row: { peerNodeUuid: null, peerPublicKey: null },
      gap: 'own_key_unusable',
      fix: /rotate-identity/,
    },
    {
      name: 'a bearer-only pairing while poolRequireSignedPeers is on',
      identity: { unsealToken: async () => 'bearer-token' },
      requireSigned: true,
      row: { peerNodeUuid: null, peerPublicKey: null },
      gap: 'signed_required',
      fix: /poolRequireSignedPeers false/,
    },
  ];
  for (const c of cases)
    it(`calls ${c.name} cannot_authenticate with the fix, at the normal cadence, having dialled nothing`, async () => {
      let dialled = 0;
      const server = createServer((_req, res) => {
        dialled++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(DOCUMENT));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const dispatcher = new Agent();
      let requireSigned = c.requireSigned;
      try {
        const client = new PeerClient({
          identity: c.identity as NodeIdentity,
          selfName: async () => 'self.tail0.ts.net',
          origins: new Map([['peer.tail0.ts.net', `http://127.0.0.1:${(server.address() as AddressInfo).port}`]]),
          dispatcher,
          nameDispatcher: dispatcher,
          settings: () => ({ ...DEFAULT_SETTINGS, poolRequireSignedPeers: requireSigned }),
          clock: systemClock,
        });
        let probes = 0;
        const counting = { call: (...args: Parameters<PeerClient['call']>) => (probes++, client.call(...args)) } as unknown as PeerClient;
        const { clock, store, poller, add } = setup(counting);
        const row = add('peer.tail0.ts.net', c.row);
        for (let i = 1; i <= 3; i++) {
          await poller.tick();
          assert.equal(probes, i, 'polled every interval: a probe not sent is no refusal to back off from');
          clock.advance(30_000);
        }
        const health = poller.health(row.id);
        assert.deepEqual([health.probeFailure, health.probeFailureGap, store.get(row.id)?.status], ['cannot_authenticate', c.gap, 'unreachable']);
        assert.equal(dialled, 0, 'nothing reached the peer');
        const view = peerView(store.get(row.id)!, health, {
          selfName: 'self.tail0.ts.net',
          pairing: { approvedThereAt: null, confirming: false },
          nowMs: clock.nowMs(),
          pollSeconds: 30,
        });
        assert.match(view.probeFailure?.action ?? '', c.fix);
        assert.doesNotMatch(view.probeFailure?.action ?? '', /none needed/);

        if (c.gap === 'signed_required') {
          // The fix the action names clears it on the next poll.
          requireSigned = false;
          await poller.tick();
          assert.deepEqual([poller.health(row.id).probeFailure, poller.health(row.id).probeFailureGap, store.get(row.id)?.status], [null, null, 'connected']);
          assert.equal(dialled, 1);
        }
      } finally {
        await dispatcher.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
});
