/**
 * Placement CPU per request against the number of candidate peers, in this process, from the
 * Hub's own code: every peer's capabilities go through readCapabilities (as a poll stores them),
 * then each request runs the placement half of PoolProxy.serveRouted call for call: usablePeers,
 * peerCandidates, rankCandidates, prefix affinity's context, placementInputs (slots, throughput,
 * contention), nodeLimits, the withheld facts and place() with every step. The glue (the order of
 * the calls and their arguments) is mirrored, as bench/fleet does; no rule is restated.
 *
 * Three request shapes: a short chat (the throughput step records null); a long prompt over
 * THROUGHPUT_MIN_TOKENS (it predicts every candidate from the book and the peer's advert), sent
 * again and again as a session's later calls repeat their head, so prefix affinity's digest
 * comes from its memo; and the same long prompt as a session's first call, each request with a
 * head the memo does not hold, so each pays the SHA-256. Every peer holds the model, so every
 * peer is a candidate: the worst case for a given pool size.
 */
import { loadEnv } from '../../src/config/env.js';
import { DEFAULT_SETTINGS, type PoolSettings } from '../../src/config/settings-schema.js';
import { readCapabilities, type PeerCapabilities } from '../../src/peers/capabilities.js';
import type { PeerHealth } from '../../src/peers/health-poller.js';
import { usablePeers } from '../../src/peers/usable-peers.js';
import { peerCandidates } from '../../src/placement/candidates.js';
import { place } from '../../src/placement/pipeline.js';
import { rankCandidates } from '../../src/placement/rank.js';
import { DIGEST_MEMO_MAX_ENTRIES } from '../../src/placement/affinity/digest-memo.js';
import { PrefixAffinity } from '../../src/placement/affinity/prefix-affinity.js';
import { affinityHeldId } from '../../src/placement/steps/affinity.js';
import { ThroughputBook } from '../../src/placement/throughput/book.js';
import { THROUGHPUT_MIN_TOKENS } from '../../src/placement/throughput/bands.js';
import type { Placement } from '../../src/placement/types.js';
import { requestedWindow } from '../../src/placement/window.js';
import { estimatedPromptTokens, headerBudgetMs } from '../../src/proxy/header-budget.js';
import { placementInputs } from '../../src/proxy/placement-inputs.js';
import { nodeLimits } from '../../src/proxy/pool-proxy.js';
import { forwardBody, readRequestFacts } from '../../src/proxy/request-facts.js';
import { ROUTED_ROUTES } from '../../src/proxy/route-table.js';
import { WithholdBook, withheldFacts, withheldTest } from '../../src/proxy/withhold-book.js';
import type { PeerRow } from '../../src/store/peers.js';
import { systemClock } from '../../src/util/clock.js';
import { CHAT_MODEL, PEER_MODELS_DEFAULT, peerDocument } from './peer-document.js';

const env = loadEnv({});
/** The Hub's development dial map is built once at boot (system.ts); empty in production. */
const ORIGINS: ReadonlyMap<string, string> = new Map();
const CHAT_ROUTE = ROUTED_ROUTES.find((r) => r.path === '/v1/chat/completions')!;

/** Every rule on: slot awareness and prefix affinity at the values the spec validates them at. */
const SETTINGS: PoolSettings = { ...DEFAULT_SETTINGS, poolSlotAwareness: 1, poolPrefixAffinityMaxInFlight: 2 };

export type RequestShape = 'short' | 'long' | 'long-first';

export const REQUEST_SHAPES: readonly RequestShape[] = ['short', 'long', 'long-first'];

export interface PlacementPoint {
  readonly peers: number;
  readonly shape: RequestShape;
  /** Models each peer lists (peer-document.ts). */
  readonly models: number;
  /** CPU (user + system) per placement, µs: the median of `rounds`. */
  readonly cpuUsPerRequest: number;
  readonly rounds: readonly number[];
}

/** A fixed pool of N peers, each listing `models` models, as the poller would hold them: rows, health, a book with readings for half of them. */
function poolOf(n: number, models: number) {
  const now = systemClock.nowMs();
  const rows: Pick<PeerRow, 'id' | 'nodeFqdn' | 'status' | 'enabled'>[] = [];
  const health = new Map<string, PeerHealth>();
  const book = new ThroughputBook(systemClock);
  for (let i = 0; i < n; i++) {
    const id = `peer-${i}`;
    const name = `bench-${i}.tail0.ts.net`;
    rows.push({ id, nodeFqdn: name, status: 'connected', enabled: true });
    const caps: PeerCapabilities | null = readCapabilities(
      JSON.parse(JSON.stringify(peerDocument(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, i, i % 4, models))),
    );
    if (caps === null) throw new Error('the fake peer document did not pass readCapabilities');
    health.set(id, {
      probeFailure: null,
      probeFailureSince: null,
      probeFailureGap: null,
      capabilities: caps,
      capabilitiesAtMs: now,
      forwardedAtSnapshot: 0,
      leftAt: null,
    });
    if (i % 2 === 0) book.record({ node: name, backendId: null, model: CHAT_MODEL }, { promptTokens: 9000, tokensPerSec: 200 + i, deadline: false });
  }
  return { rows, health, book };
}

/** The bodies a shape's requests take in turn: one, or for first calls more heads than the digest memo holds. */
function bodiesOf(shape: RequestShape): Buffer[] {
  const chat = (content: string) => Buffer.from(JSON.stringify({ model: CHAT_MODEL, messages: [{ role: 'user', content }] }));
  if (shape === 'short') return [chat('hello')];
  const prompt = 'lorem ipsum '.repeat(Math.ceil((THROUGHPUT_MIN_TOKENS * 4 * 1.5) / 12));
  if (shape === 'long') return [chat(prompt)];
  // Each head differs in its first characters, so the memo's fingerprint tells them apart, and a
  // cycle one longer than the memo's entries finds none of them still held.
  return Array.from({ length: DIGEST_MEMO_MAX_ENTRIES + 1 }, (_, i) => chat(`${String(i).padStart(4, '0')}${prompt.slice(4)}`));
}

/** One request's placement, as serveRouted runs it (pool-proxy.ts), minus the local engines (none here) and the I/O. */
function placeOnce(pool: ReturnType<typeof poolOf>, raw: Buffer, affinity: PrefixAffinity, outputFaults: WithholdBook): Placement {
  const facts = readRequestFacts(raw, CHAT_ROUTE);
  const model = facts.model!;
  const peers = usablePeers({
    store: { list: () => pool.rows },
    health: (id) => pool.health.get(id)!,
    forwarded: () => 0,
    origins: ORIGINS,
    nowMs: systemClock.nowMs(),
    pollSeconds: SETTINGS.poolHealthPollSeconds,
  });
  const candidates = peerCandidates(peers, model, CHAT_ROUTE.dialect);
  const ranked = rankCandidates(candidates, { localAffinity: SETTINGS.poolLocalAffinity, pressureWeight: SETTINGS.poolPressureWeight });
  const ctx = affinity.contextFor({ model, judgedRoute: true, sessionHeader: undefined, body: facts.json }, SETTINGS);
  const body = forwardBody(raw, facts, model);
  const estimatedTokens = estimatedPromptTokens(body.length);
  const nowMs = systemClock.nowMs();
  const budgetMs = headerBudgetMs(body.length, env.firstByteTimeoutMs, env.minPrefillTokensPerSec);
  const withheld = withheldTest(outputFaults, model);
  const heldId = affinityHeldId([ranked], ctx);
  const inputs = placementInputs({
    route: CHAT_ROUTE,
    model,
    candidates: ranked,
    peers,
    settings: SETTINGS,
    env: env.knobs,
    estimatedTokens,
    budgetMs,
    numCtx: facts.numCtx,
    defaultNumCtx: null,
    book: pool.book,
    busy: new Map(),
    withheld,
    // Nothing is busy here, so the node affinity qualified is held (contention-hold.ts).
    affinityHeld: heldId,
    nowMs,
  });
  const placed = place(ranked, {
    model,
    pins: SETTINGS.poolPins,
    route: { path: CHAT_ROUTE.path, judgesPrompt: true },
    estimatedTokens,
    window: requestedWindow(facts.numCtx, estimatedTokens),
    nowMs,
    limits: nodeLimits(env, SETTINGS, peers),
    withheld: withheldFacts(ranked, model, outputFaults),
    ...inputs,
    affinity: ctx,
  });
  return placed;
}

/**
 * One placement of the given shape over a fresh pool of n peers, whole (order and records): for
 * checking that two builds decide alike on the benchmark's own inputs (bench/micro/placement.ts).
 */
export function onePlacement(n: number, shape: RequestShape, models = PEER_MODELS_DEFAULT): Placement {
  return placeOnce(poolOf(n, models), bodiesOf(shape)[0]!, new PrefixAffinity({ clock: systemClock, ttlMs: 10 * 60_000 }), new WithholdBook(systemClock));
}

/** CPU per call of `op(i)` (user + system, µs): after a warm-up, the median over rounds of `requests` calls each. */
function cpuPerCall(op: (i: number, round: number) => void, opts: { requests: number; rounds: number }): { median: number; rounds: number[] } {
  // Warm-up: let V8 optimise the path before it is timed.
  for (let i = 0; i < Math.min(500, opts.requests); i++) op(i, -1);
  const rounds: number[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < opts.requests; i++) op(i, r);
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / opts.requests);
  }
  const sorted = [...rounds].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, rounds };
}

export function measurePlacement(n: number, shape: RequestShape, opts: { requests: number; rounds: number; models?: number }): PlacementPoint {
  const models = opts.models ?? PEER_MODELS_DEFAULT;
  const pool = poolOf(n, models);
  const bodies = bodiesOf(shape);
  const affinity = new PrefixAffinity({ clock: systemClock, ttlMs: 10 * 60_000 });
  const outputFaults = new WithholdBook(systemClock);
  const { median, rounds } = cpuPerCall((i, r) => {
    const placed = placeOnce(pool, bodies[i % bodies.length]!, affinity, outputFaults);
    if (r < 0 && placed.order.length !== n) throw new Error(`expected ${n} candidates placed`);
  }, opts);
  return { peers: n, shape, models, cpuUsPerRequest: median, rounds };
}

/**
 * Reading a shape's body alone (readRequestFacts, the first call of placeOnce): the part of a
 * placement that is the same at any number of peers, and the cost any routed request pays.
 */
export function measureBodyRead(shape: RequestShape, opts: { requests: number; rounds: number }): { cpuUsPerRequest: number } {
  const bodies = bodiesOf(shape);
  let models = 0;
  const { median } = cpuPerCall((i) => {
    if (readRequestFacts(bodies[i % bodies.length]!, CHAT_ROUTE).model !== null) models += 1;
  }, opts);
  if (models === 0) throw new Error('the bodies named no model');
  return { cpuUsPerRequest: median };
}
