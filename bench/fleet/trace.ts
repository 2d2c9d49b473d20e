/**
 * The trace: every request the run will make, built from the workload file and its seed before
 * any policy runs, so every policy answers the same requests. Agent sessions are closed loops
 * (a turn is sent when the previous one has been answered and its tools have run), so their
 * arrival times depend on the policy, but their number, sizes, prefixes and think times do not.
 * Chat and embeddings arrive open-loop at fixed times.
 */
import { Rng } from './rng.js';
import type { WorkloadSpec } from './data-files.js';

/** A run of prompt tokens with one identity: two prompts share a prefix while their segments match. */
export interface Segment {
  readonly id: string;
  readonly tokens: number;
}

export type RequestKind = 'agent' | 'chat' | 'embed';

export interface TraceRequest {
  readonly id: string;
  readonly kind: RequestKind;
  readonly sessionId: string | null;
  /** The Hub the request enters through (a node name). */
  readonly entry: string;
  readonly path: string;
  readonly model: 'chat' | 'embed';
  /** Pool tokens: bytes / 4 of the body as forwarded. */
  readonly promptTokens: number;
  readonly segments: readonly Segment[];
  /** options.num_ctx; null on an OpenAI-compatible route (the engine's default window). */
  readonly numCtx: number | null;
  readonly outputTokens: number;
  readonly stream: boolean;
  /** A small chat body whose head identifies the session the way the proxy's digest does. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Tokens this request shares with its session's previous call: what a warm engine would not read again. */
  readonly sharedWithPrevious: number;
}

export interface Turn {
  readonly calls: readonly TraceRequest[];
  /** Tool time after the turn's answers before the next turn is sent. */
  readonly thinkMs: number;
}

export interface Session {
  readonly id: string;
  readonly agent: string;
  readonly startMs: number;
  readonly turns: readonly Turn[];
}

export interface Trace {
  readonly sessions: readonly Session[];
  /** Chat and embeddings, with their arrival offsets. */
  readonly open: readonly { readonly atMs: number; readonly request: TraceRequest }[];
  readonly requestCount: number;
}

const round = (x: number) => Math.round(x);

export function buildTrace(w: WorkloadSpec, seed: number): Trace {
  const rng = new Rng(seed);
  const sessions: Session[] = [];
  let requestCount = 0;
  w.agents.forEach((agent, ai) => {
    const arng = rng.fork(1000 + ai);
    for (let s = 0; s < agent.sessions; s++) {
      const id = `${agent.name}-${s}`;
      const entry = agent.entries[s % agent.entries.length]!;
      const startMs = round(arng.between(0, w.startWindowS * 1000));
      const turnCount = arng.int(agent.turns[0], agent.turns[1]);
      let history = arng.int(agent.firstHistoryTokens[0], agent.firstHistoryTokens[1]);
      let previous = 0;
      const turns: Turn[] = [];
      for (let t = 0; t < turnCount; t++) {
        if (agent.systemTokens + history > agent.maxPromptTokens) break;
        const parallel = arng.next() < agent.parallelProbability ? arng.int(2, 3) : 1;
        const calls: TraceRequest[] = [];
        for (let c = 0; c < parallel; c++) {
          const suffix = arng.int(50, 400);
          const segments = [
            { id: `sys:${agent.name}`, tokens: agent.systemTokens },
            { id: `hist:${id}`, tokens: history },
            { id: `call:${id}:${t}:${c}`, tokens: suffix },
          ];
          const promptTokens = agent.systemTokens + history + suffix;
          calls.push({
            id: `${id}/t${t}/c${c}`,
            kind: 'agent',
            sessionId: id,
            entry,
            path: agent.numCtx === null ? '/v1/chat/completions' : '/api/chat',
            model: 'chat',
            promptTokens,
            segments,
            numCtx: agent.numCtx,
            outputTokens: arng.int(agent.outputTokens[0], agent.outputTokens[1]),
            stream: true,
            body: {
              messages: [
                { role: 'system', content: `agent ${agent.name}` },
                { role: 'user', content: `session ${id}` },
              ],
            },
            sharedWithPrevious: previous === 0 ? 0 : Math.min(previous, agent.systemTokens + history),
          });
          requestCount++;
        }
        turns.push({ calls, thinkMs: round(arng.between(agent.thinkMs[0], agent.thinkMs[1])) });
        previous = agent.systemTokens + history;
        history += arng.int(agent.appendTokens[0], agent.appendTokens[1]);
      }
      sessions.push({ id, agent: agent.name, startMs, turns });
    }
  });
  const open: { atMs: number; request: TraceRequest }[] = [];
  const horizonMs = w.startWindowS * 1000;
  const crng = rng.fork(7);
  if (w.chat.perMinute > 0) {
    for (let t = crng.exponential(60_000 / w.chat.perMinute), i = 0; t < horizonMs; t += crng.exponential(60_000 / w.chat.perMinute), i++) {
      const promptTokens = crng.int(w.chat.promptTokens[0], w.chat.promptTokens[1]);
      open.push({
        atMs: round(t),
        request: {
          id: `chat-${i}`,
          kind: 'chat',
          sessionId: null,
          entry: crng.pick(w.chat.entries),
          path: '/v1/chat/completions',
          model: 'chat',
          promptTokens,
          segments: [{ id: `chat:${i}`, tokens: promptTokens }],
          numCtx: null,
          outputTokens: crng.int(w.chat.outputTokens[0], w.chat.outputTokens[1]),
          stream: true,
          body: { messages: [{ role: 'user', content: `chat ${i}` }] },
          sharedWithPrevious: 0,
        },
      });
    }
  }
  const erng = rng.fork(11);
  if (w.embeddings.perMinute > 0) {
    for (let t = erng.exponential(60_000 / w.embeddings.perMinute), i = 0; t < horizonMs; t += erng.exponential(60_000 / w.embeddings.perMinute), i++) {
      const promptTokens = erng.int(w.embeddings.inputTokens[0], w.embeddings.inputTokens[1]);
      open.push({
        atMs: round(t),
        request: {
          id: `embed-${i}`,
          kind: 'embed',
          sessionId: null,
          entry: erng.pick(w.embeddings.entries),
          path: '/v1/embeddings',
          model: 'embed',
          promptTokens,
          segments: [],
          numCtx: null,
          outputTokens: 0,
          stream: false,
          body: { input: `embed ${i}` },
          sharedWithPrevious: 0,
        },
      });
    }
  }
  open.sort((a, b) => a.atMs - b.atMs);
  return { sessions, open, requestCount: requestCount + open.length };
}
