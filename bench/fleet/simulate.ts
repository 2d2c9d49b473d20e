/**
 * One run: a fleet, a trace and a policy, through the same walk every policy gets. A request
 * is placed (the policy's order), tried node by node, and fails over on a 500 or when no first
 * byte arrives inside its budget (the project's headerBudgetMs at the Hub's defaults); a
 * streamed answer of placeholders cannot be recalled, so it reaches the app and counts as a bad
 * answer. Agent turns follow their answers (closed loop); chat and embeddings arrive on time.
 */
import { estimatedPromptTokens, headerBudgetMs } from '../../src/proxy/header-budget.js';
import { LARGE_PROMPT_TOKENS } from '../../src/placement/throughput-input.js';
import type { AttemptFailure } from '../../src/proxy/failover-policy.js';
import { HUB_ENV } from './policies/hub-pool.js';
import type { FleetSpec } from './data-files.js';
import { Engine } from './engine.js';
import { EventQueue } from './event-queue.js';
import type { PolicyFactory, World } from './policy.js';
import { Rng } from './rng.js';
import type { Trace, TraceRequest } from './trace.js';

/** The simulated clock starts here (any fixed instant; the rules read only differences). */
export const SIM_EPOCH_MS = Date.UTC(2026, 8, 21, 12, 0, 0);
/** How often each node's load is sampled for the load chart. */
export const LOAD_SAMPLE_MS = 60_000;
/**
 * How often an app sends a call again after a 502 or an answer of placeholders (OpenClaw reported
 * such turns as "usually temporary — try again", and the OpenAI SDKs retry a 5xx twice), so a
 * policy that serves garbage pays for it in time instead of dropping out of the TTFT figures.
 */
export const APP_RETRIES = 2;
/** A run that needs more events than this has a bug; it stops and says so. */
const MAX_EVENTS = 20_000_000;

export type Outcome = 'ok' | 'bad-output' | 'failed';

export interface RequestResult {
  readonly id: string;
  readonly kind: TraceRequest['kind'];
  readonly promptTokens: number;
  /** Estimated at or over LARGE_PROMPT_TOKENS (6,144), the project's line for a large prompt. */
  readonly long: boolean;
  readonly arrivalMs: number;
  /** First send to the first token of a usable answer (app retries included); null when none arrived. */
  readonly ttftMs: number | null;
  readonly outcome: Outcome;
  /** Attempts over every walk the request took (a retry by the app walks again). */
  readonly attempts: number;
  /** Answers of placeholders the app received on the way (each one made it send the call again, up to APP_RETRIES). */
  readonly badAnswers: number;
  /** Times the app sent the call again after a 502 or a placeholder answer. */
  readonly appRetries: number;
  readonly deadlinesMissed: number;
  readonly servedBy: string | null;
  readonly cachedTokens: number;
  /** Tokens shared with the session's previous call that were read again. */
  readonly reprefilled: number;
  readonly budgetMs: number;
}

export interface RunResult {
  readonly policy: string;
  readonly requests: readonly RequestResult[];
  /** Requests in flight on each node at each LOAD_SAMPLE_MS tick. */
  readonly load: ReadonlyMap<string, readonly number[]>;
  readonly loads: ReadonlyMap<string, number>;
  readonly endMs: number;
  readonly events: number;
  readonly extra: Record<string, number>;
}

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function simulate(fleet: FleetSpec, trace: Trace, factory: PolicyFactory, seed: number): RunResult {
  const q = new EventQueue(SIM_EPOCH_MS);
  const rng = new Rng(seed ^ 0x5eed);
  // Candidates are listed in a seeded shuffle of the fleet, so no policy's tie-break profits from the file's order.
  const listed = shuffled(fleet.nodes, rng.fork(99));
  const engines = new Map(listed.map((n, i) => [n.name, new Engine(n, fleet, q, rng.fork(i))]));
  const inFlight = new Map<string, number>(fleet.nodes.map((n) => [n.name, 0]));
  const budgetMs = (r: TraceRequest) => headerBudgetMs(r.promptTokens * 4, HUB_ENV.firstByteTimeoutMs, HUB_ENV.minPrefillTokensPerSec);
  const world: World = { q, fleet, engines, budgetMs, inFlight };
  const policy = factory(world);
  const results: RequestResult[] = [];
  const load = new Map<string, number[]>(fleet.nodes.map((n) => [n.name, []]));
  let pending = trace.requestCount;

  const sampleLoad = () => {
    for (const [n, e] of engines) load.get(n)!.push(e.inFlight);
    if (pending > 0) q.after(LOAD_SAMPLE_MS, sampleLoad);
  };
  sampleLoad();

  const send = (r: TraceRequest, settled: () => void) => {
    const arrivalMs = q.nowMs();
    const budget = budgetMs(r);
    let deadlines = 0;
    let attempts = 0;
    let appRetries = 0;
    let badAnswers = 0;
    const finish = (res: Pick<RequestResult, 'ttftMs' | 'outcome' | 'servedBy' | 'cachedTokens' | 'reprefilled'>) => {
      results.push({
        id: r.id,
        kind: r.kind,
        promptTokens: r.promptTokens,
        long: r.kind !== 'embed' && estimatedPromptTokens(r.promptTokens * 4) >= LARGE_PROMPT_TOKENS,
        arrivalMs: arrivalMs - SIM_EPOCH_MS,
        deadlinesMissed: deadlines,
        budgetMs: budget,
        attempts,
        appRetries,
        badAnswers,
        ...res,
      });
      pending--;
      settled();
    };
    /** The app's answer to a 502 or a placeholder answer: send the same call again, a bounded number of times. */
    const retryOr = (res: Pick<RequestResult, 'ttftMs' | 'outcome' | 'servedBy' | 'cachedTokens' | 'reprefilled'>) => {
      if (appRetries < APP_RETRIES) {
        appRetries++;
        walk({ ...r, id: `${r.id}#retry${appRetries}` });
      } else finish(res);
    };
    const walk = (req: TraceRequest) => {
      const order = policy.order(req);
      const failures: { node: string; failure: AttemptFailure }[] = [];
      const attempt = (i: number) => {
        const node = order[i];
        if (node === undefined) {
          policy.onSettled?.(req, {
            end: 'exhausted',
            served: null,
            attempt: null,
            status: null,
            headersMs: null,
            attemptHeadersMs: null,
            totalMs: q.nowMs() - arrivalMs,
            degenerate: false,
            failures,
            timings: null,
          });
          retryOr({ ttftMs: null, outcome: 'failed', servedBy: null, cachedTokens: 0, reprefilled: 0 });
          return;
        }
        attempts++;
        const engine = engines.get(node)!;
        const startedMs = q.nowMs();
        let over = false;
        let firstMs: number | null = null;
        let cached = 0;
        let promptMs = 0;
        inFlight.set(node, inFlight.get(node)! + 1);
        const fail = (failure: AttemptFailure, degenerate: boolean) => {
          over = true;
          inFlight.set(node, inFlight.get(node)! - 1);
          failures.push({ node, failure });
          policy.onAttemptEnd?.(req, i, node, degenerate ? null : failure, degenerate);
          attempt(i + 1);
        };
        const job = engine.submit(req, {
          firstToken: (info) => {
            if (over) return;
            deadline.cancelled = true;
            firstMs = q.nowMs();
            cached = info.cachedTokens;
            promptMs = info.promptMs;
            // A non-streamed answer of placeholders is read whole and fails over like a 5xx.
            if (job.degenerate && !req.stream) {
              engine.cancel(job);
              badAnswers++;
              fail({ kind: 'status', status: 502, peerRefused: false }, true);
            }
          },
          done: (info) => {
            if (over) return;
            over = true;
            inFlight.set(node, inFlight.get(node)! - 1);
            policy.onAttemptEnd?.(req, i, node, null, job.degenerate);
            const headersMs = firstMs! - arrivalMs;
            const timings = job.degenerate
              ? null
              : { promptTokens: req.promptTokens, cachedTokens: cached, promptMs, completionTokens: req.outputTokens, decodeMs: info.decodeMs };
            policy.onSettled?.(req, {
              end: 'committed',
              served: node,
              attempt: i + 1,
              status: 200,
              headersMs,
              attemptHeadersMs: firstMs! - startedMs,
              totalMs: q.nowMs() - arrivalMs,
              degenerate: job.degenerate,
              failures,
              timings,
            });
            const res = { servedBy: node, cachedTokens: cached, reprefilled: Math.max(0, Math.min(req.sharedWithPrevious, req.promptTokens) - cached) };
            if (job.degenerate) badAnswers++;
            if (job.degenerate) retryOr({ ...res, ttftMs: null, outcome: 'bad-output' });
            else finish({ ...res, ttftMs: headersMs, outcome: 'ok' });
          },
          failed: (status) => {
            if (over) return;
            deadline.cancelled = true;
            fail({ kind: 'status', status, peerRefused: false }, false);
          },
        });
        const deadline = q.at(startedMs + budget, () => {
          if (over || firstMs !== null) return;
          deadlines++;
          engine.cancel(job);
          fail({ kind: 'deadline', budgetMs: budget }, false);
        });
        policy.onAttempt?.(req, i, node);
      };
      attempt(0);
    };
    walk(r);
  };

  for (const s of trace.sessions) {
    const runTurn = (t: number) => {
      const turn = s.turns[t];
      if (turn === undefined) return;
      let left = turn.calls.length;
      for (const call of turn.calls) {
        send(call, () => {
          if (--left === 0) q.after(turn.thinkMs, () => runTurn(t + 1));
        });
      }
    };
    q.at(SIM_EPOCH_MS + s.startMs, () => runTurn(0));
  }
  for (const o of trace.open) q.at(SIM_EPOCH_MS + o.atMs, () => send(o.request, () => undefined));

  if (!q.run(MAX_EVENTS)) throw new Error(`run for ${policy.name} passed ${MAX_EVENTS} events: a bug in the simulator`);
  if (pending !== 0) throw new Error(`run for ${policy.name} ended with ${pending} requests unsettled`);
  return {
    policy: policy.name,
    requests: results,
    load,
    loads: new Map([...engines].map(([n, e]) => [n, e.loads])),
    endMs: q.nowMs() - SIM_EPOCH_MS,
    events: q.eventsRun,
    extra: policy.finish?.() ?? {},
  };
}
