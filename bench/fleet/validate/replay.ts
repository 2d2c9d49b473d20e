/**
 * The real half of the validation run: three Hub processes (`bin/cihub serve`, started and
 * paired on loopback by the test suite's pool fixture, which mocks only Tailscale) in front of
 * simulated engines (src/sim) set up like three nodes of the fleet file, replaying a trace slice
 * at a time scale. Times the app side: each request's first send to the first byte of its
 * streamed answer, turned back into simulated ms by the time scale.
 *
 * Everything the Hub times in wall-clock ms that the discrete-event model times in simulated ms
 * is scaled to match: the first-byte budget (HUB_POOL_FIRST_BYTE_TIMEOUT_MS and the prefill rate
 * it assumes) and the prefix-affinity TTL. The health poll cannot be: the Hub refuses a poll
 * under 10 s, so the caller gives the simulator the same interval in simulated time instead.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_MIN_PREFILL_TOKENS_PER_SEC, DEFAULT_PREFIX_AFFINITY_TTL_MS } from '../../../src/config/env.js';
import { isHardwareTier, type HardwareTier } from '../../../src/machine/hardware-tier.js';
import { estimatedPromptTokens } from '../../../src/proxy/header-budget.js';
import { LARGE_PROMPT_TOKENS } from '../../../src/placement/throughput-input.js';
import { nodeName, startPool, type EngineSpec, type HubSpec, type PoolHub } from '../../../test/helpers/pool-fixture.js';
import type { FleetSpec, NodeSpec } from '../data-files.js';
import { APP_RETRIES } from '../simulate.js';
import type { Trace, TraceRequest } from '../trace.js';
import { requestBody, SegmentText } from './request-body.js';

/** The Hub's smallest poolHealthPollSeconds (settings-schema.ts); the replay polls at it. */
export const REPLAY_POLL_SECONDS = 10;
/**
 * The simulated engine's natural answer length, set past any trace request's output, so that
 * num_predict / max_tokens (the trace's output length) is what ends every answer.
 */
const ANSWER_TOKENS_CEILING = 100_000;
/** The Hubs letter their nodes a, b, c in the fleet file's order. */
const LETTERS = ['a', 'b', 'c'] as const;

export interface ReplayedRequest {
  readonly id: string;
  readonly kind: TraceRequest['kind'];
  readonly long: boolean;
  readonly entry: string;
  /** The node whose engine answered (x-hub-pool-served-by); null when no answer came. */
  readonly servedBy: string | null;
  /** First send to the first byte of a 200 answer, simulated ms (wall ms / time scale); null when none came. */
  readonly ttftMs: number | null;
  /** The last HTTP status the app saw. */
  readonly status: number | null;
  readonly appRetries: number;
}

export interface ReplayResult {
  readonly requests: readonly ReplayedRequest[];
  /** The hardwareTier each node's Hub published, as a peer read it. */
  readonly tiers: Readonly<Record<string, string | null>>;
  /** Wall ms from the first request to the last answer. */
  readonly wallMs: number;
}

export interface ReplayOptions {
  readonly fleet: FleetSpec;
  readonly trace: Trace;
  /** Wall ms per simulated ms (0.1: ten times faster than the trace's own time). */
  readonly timeScale: number;
  /** Pool settings PATCHed on every Hub (the policy's settings). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** A replay still running after this many wall ms stops with an error. */
  readonly maxWallMs: number;
}

function engineSpec(node: NodeSpec, fleet: FleetSpec, timeScale: number): EngineSpec {
  return {
    models: [
      {
        name: fleet.model,
        prefillTps: node.prefillTokensPerSec,
        // src/sim's slow-down is per 1,000 tokens of context; the fleet file's growth is where the cost has doubled.
        prefillSlowdownPerKTok: 1000 / node.growthTokens,
        decodeTps: node.decodeTokensPerSec,
        slots: node.slots,
        loadMs: node.loadMs,
        answerTokens: ANSWER_TOKENS_CEILING,
      },
    ],
    timeScale,
    defaultNumCtx: node.defaultNumCtx,
    keepAliveMs: fleet.keepAliveMs,
    reportCachedCount: true,
  };
}

function hubSpec(node: NodeSpec, fleet: FleetSpec, timeScale: number): HubSpec {
  return {
    ollama: engineSpec(node, fleet, timeScale),
    env: {
      HUB_LOG_LEVEL: 'warn',
      HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(Math.max(1, Math.round(DEFAULT_FIRST_BYTE_TIMEOUT_MS * timeScale))),
      HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: String(DEFAULT_MIN_PREFILL_TOKENS_PER_SEC / timeScale),
      HUB_POOL_PREFIX_AFFINITY_TTL_MS: String(Math.max(1, Math.round(DEFAULT_PREFIX_AFFINITY_TTL_MS * timeScale))),
    },
    settings: {
      ...(node.statesSlots ? { inferenceOllamaSlots: node.slots } : {}),
      ...(node.maxNumCtx === null ? {} : { inferenceMaxNumCtx: node.maxNumCtx }),
    },
  };
}

export async function replay(opts: ReplayOptions): Promise<ReplayResult> {
  const { fleet, trace, timeScale } = opts;
  if (fleet.nodes.length !== LETTERS.length) throw new Error(`the validation fleet has ${LETTERS.length} nodes, not ${fleet.nodes.length}`);
  const letterOf = new Map(fleet.nodes.map((n, i) => [n.name, LETTERS[i]!]));
  const nodeOfFqdn = new Map(fleet.nodes.map((n, i) => [nodeName(LETTERS[i]!), n.name]));
  const hubs = Object.fromEntries(fleet.nodes.map((n, i) => [LETTERS[i]!, hubSpec(n, fleet, timeScale)])) as Record<(typeof LETTERS)[number], HubSpec>;
  const pool = await startPool({
    hubs,
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ],
    settings: { poolHealthPollSeconds: REPLAY_POLL_SECONDS, ...opts.settings },
  });
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  try {
    const tiers: Record<string, string | null> = {};
    for (const [i, n] of fleet.nodes.entries()) {
      const viewer = pool.hubs[(i + 1) % pool.hubs.length]!;
      tiers[n.name] = (await viewer.peer(pool.hubs[i]!))?.hardwareTier ?? null;
    }
    const hubOf = (node: string): PoolHub => pool[letterOf.get(node)!];
    const texts = new SegmentText();
    const results: ReplayedRequest[] = [];
    const t0 = performance.now();
    const wallAt = (simMs: number) => t0 + simMs * timeScale;

    const sendOnce = async (r: TraceRequest, body: string, sentAt: number) => {
      const res = await request(`${hubOf(r.entry).pool}${r.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        dispatcher,
        headersTimeout: opts.maxWallMs,
        bodyTimeout: opts.maxWallMs,
      });
      const served = res.headers['x-hub-pool-served-by'];
      const servedBy = typeof served === 'string' ? (served === 'local' ? r.entry : (nodeOfFqdn.get(served) ?? served)) : null;
      if (res.statusCode !== 200) {
        await res.body.text();
        return { status: res.statusCode, firstMs: null, servedBy };
      }
      let firstMs: number | null = null;
      for await (const chunk of res.body) {
        if (firstMs === null && (chunk as Buffer).length > 0) firstMs = (performance.now() - sentAt) / timeScale;
      }
      return { status: 200, firstMs, servedBy };
    };

    const send = async (r: TraceRequest): Promise<void> => {
      const body = JSON.stringify(requestBody(r, fleet.model, texts));
      const sentAt = performance.now();
      let appRetries = 0;
      for (;;) {
        let out: { status: number | null; firstMs: number | null; servedBy: string | null };
        try {
          out = await sendOnce(r, body, sentAt);
        } catch {
          out = { status: null, firstMs: null, servedBy: null };
        }
        if (out.firstMs !== null || appRetries >= APP_RETRIES) {
          results.push({
            id: r.id,
            kind: r.kind,
            long: estimatedPromptTokens(r.promptTokens * 4) >= LARGE_PROMPT_TOKENS,
            entry: r.entry,
            servedBy: out.firstMs === null ? null : out.servedBy,
            ttftMs: out.firstMs,
            status: out.status,
            appRetries,
          });
          return;
        }
        appRetries++;
      }
    };

    const sleepUntil = (wallMs: number) => new Promise<void>((res) => setTimeout(res, Math.max(0, wallMs - performance.now())));
    const runSession = async (s: Trace['sessions'][number]) => {
      await sleepUntil(wallAt(s.startMs));
      for (const turn of s.turns) {
        await Promise.all(turn.calls.map(send));
        await sleepUntil(performance.now() + turn.thinkMs * timeScale);
      }
    };
    const runOpen = async (o: Trace['open'][number]) => {
      await sleepUntil(wallAt(o.atMs));
      await send(o.request);
    };
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the replay passed ${opts.maxWallMs} ms of wall time`)), opts.maxWallMs);
    });
    try {
      await Promise.race([Promise.all([...trace.sessions.map(runSession), ...trace.open.map(runOpen)]), overrun]);
    } finally {
      clearTimeout(timer);
    }
    return { requests: results, tiers, wallMs: performance.now() - t0 };
  } finally {
    await dispatcher.close();
    await pool.stop();
  }
}

/** The tiers as the placement code types them; a value that is no tier reads as none. */
export function tiersByNode(tiers: Readonly<Record<string, string | null>>): Record<string, HardwareTier | null> {
  return Object.fromEntries(Object.entries(tiers).map(([n, t]) => [n, isHardwareTier(t) ? t : null]));
}
