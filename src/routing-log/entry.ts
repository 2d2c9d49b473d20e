/**
 * One routing-log row (spec, "Operator status and routing log"). A wire contract read by the
 * CLI, the dashboard and other Hubs' operators: field names are the spec's, append only.
 * Metadata only: never a prompt, a body, or an engine's message text.
 */
import type { EngineKind } from '../engines/engine-kind.js';
import type { ContentionRecord, SlotsRecord, ThroughputRecord } from './placement-records.js';

export type Direction = 'outbound' | 'inbound';
export type Outcome = 'pending' | 'served' | 'failed';

/** Why one candidate was passed over during a walk. */
export interface Attempt {
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The engine kind tried on that node; null when the node is a peer that did not say. */
  readonly backend: EngineKind | null;
  /** The HTTP status it answered, or null when it never answered (deadline, transport error). */
  readonly status: number | null;
  /** A few words: "HTTP 503", "No response headers within 300000ms", "fetch failed (ECONNREFUSED)". */
  readonly reason: string;
}

/** Signature of a response that proved the request bad (issue 5 fills the verdict kinds). */
export interface RequestError {
  readonly signature: string;
  readonly basis: 'definitive' | 'confirmed' | 'last-candidate' | 'status' | 'node';
  /** The earlier node a confirmed verdict agreed with; null otherwise. */
  readonly confirms: string | null;
}

/**
 * The pin section of a row: which operator pin governed this model, and whether its target
 * had a candidate to move forward. null on the row when no pin names the model and there is
 * no default pin.
 */
export interface PinRecord {
  readonly scope: 'model' | 'default';
  /** The pinned model id for a model pin; null for the default pin. */
  readonly model: string | null;
  /** 'local' or a peer's MagicDNS name, as the pin stores it. */
  readonly target: string;
  /** False when the target had no candidate for this request, so the ranked order stood. */
  readonly applied: boolean;
}

/**
 * The promptCeiling section: null when no candidate had a ceiling (and on every inbound row, and
 * on routes a ceiling does not judge). Tells "the ceiling skipped that node" apart from "the
 * ranker preferred another".
 */
export interface PromptCeilingRecord {
  /** bytes / 4 of the body as forwarded. */
  readonly estimatedTokens: number;
  /** The nodes moved to the back, each with its ceiling; empty when nothing moved (every candidate over, or none). */
  readonly excluded: readonly { readonly node: string; readonly maxPromptTokens: number }[];
  /** True when the request was placed on one of the excluded nodes anyway (everything ahead failed). */
  readonly overridden: boolean;
}

/**
 * The contextCap section: null when no candidate had a cap (and inbound, and on routes a cap
 * does not judge).
 */
export interface ContextCapRecord {
  /** The window the request asks for. */
  readonly numCtx: number;
  /** 'request': options.num_ctx in the body; 'estimated': the prompt estimate stood in. */
  readonly source: 'request' | 'estimated';
  /** The nodes moved behind the ones that can take the window, each with its cap; empty when nothing moved. */
  readonly excluded: readonly { readonly node: string; readonly maxNumCtx: number }[];
  readonly overridden: boolean;
}

/**
 * The withheld section (beyond the spec's fields, so a row says why the best node was skipped):
 * null when no candidate was withheld for bad output.
 */
export interface WithheldRecord {
  /** The engines moved behind every other candidate, in walk order. */
  readonly demoted: readonly {
    readonly node: string;
    /** The engine kind locally; null for a peer, whose engine is its own choice. */
    readonly backend: EngineKind | null;
    /** The local engine's id (`ollama-1`), which tells two engines of one kind apart; null for a peer. */
    readonly backendId: string | null;
    /** ISO time the withhold ends. */
    readonly until: string;
    /** The fault that withheld it. */
    readonly reason: string;
  }[];
  readonly overridden: boolean;
}

/**
 * The affinity section of a row (spec, "Prefix affinity", What it says). null on the row when
 * affinity is off (poolPrefixAffinityMaxInFlight 0), the route is not one it judges, or the
 * request had no session to key. Never carries the key itself.
 * - hit: the remembered node and engine were placed first (qualified says whether affinity put them there);
 * - skipped: remembered and a candidate, but not first (qualified false: its queue was too deep;
 *   true: a later step put another node first);
 * - miss: nothing remembered, or the remembered node and engine are no candidate now.
 */
export interface AffinityRecord {
  readonly outcome: 'hit' | 'skipped' | 'miss';
  /** header: named with X-Hub-Pool-Session; hashed: digested from the prompt's head. */
  readonly key: 'header' | 'hashed';
  /** Whether affinity's test passed (under the limit, or within the margin); false on a miss. */
  readonly qualified: boolean;
  /** The node the session was last placed on ('local' or a peer's name); null when nothing was remembered. */
  readonly remembered: string | null;
  /** The remembered engine's queue depth as ranked; null when it is no candidate. */
  readonly inFlight: number | null;
  /**
   * False when inFlight is the neutral assumed load of a peer that reported none
   * (Candidate.loadReported); null with inFlight.
   */
  readonly loadReported: boolean | null;
  /** The least-loaded other candidate's queue depth (what the margin is measured from); null when there is no other candidate or no remembered one. */
  readonly leastLoadedInFlight: number | null;
  /** poolPrefixAffinityMaxInFlight in force. */
  readonly maxInFlight: number;
  /** poolPrefixAffinityMargin in force. */
  readonly affinityMargin: number;
}

/**
 * Placement records, one per step, under the spec's names. null: the step did nothing or
 * did not apply (later issues fill the rest).
 */
export interface PlacementRecords {
  readonly pin: PinRecord | null;
  readonly promptCeiling: PromptCeilingRecord | null;
  readonly contextCap: ContextCapRecord | null;
  readonly slots: SlotsRecord | null;
  readonly throughput: ThroughputRecord | null;
  readonly contention: ContentionRecord | null;
  readonly affinity: AffinityRecord | null;
  readonly withheld: WithheldRecord | null;
}

export interface RoutingLogEntry extends PlacementRecords {
  /** Request id; also sent as X-Hub-Pool-Request-Id. */
  readonly id: string;
  /** ISO time the request was placed. */
  readonly timestamp: string;
  /** ISO time of the last change to this row (the cursor field). */
  readonly updatedAt: string;
  readonly direction: Direction;
  /** The app-facing path, e.g. /v1/chat/completions or /api/chat. */
  readonly path: string;
  /** The model routed for (after auto resolved); null when the request never named one. */
  readonly model: string | null;
  /** Outbound: the node that served (or that was being waited on when the caller hung up). Inbound: the peer that sent the work. null: no node answered. */
  readonly node: string | null;
  /** Engine kind on the serving node; null when none served. */
  readonly backend: EngineKind | null;
  /**
   * The id of this Hub's engine that served (`ollama-1`); null when a peer served (its engine is
   * its own to name) or none did. OLLAMA_URL takes a list, so the kind alone cannot say which of
   * two local Ollamas a row settled on, and `overridden` is judged per engine.
   */
  readonly backendId: string | null;
  /** How many candidates placement ranked. */
  readonly candidates: number;
  /** 1-based index of the attempt that settled the row; null while pending or when nothing was tried. */
  readonly attempt: number | null;
  /** Nodes tried and passed over before the one that settled the row, in order. */
  readonly failedOverFrom: readonly string[];
  /**
   * Why each of failedOverFrom was passed over, in the same order; on a walk that ran out, one
   * entry more: the last candidate tried, whose failure settled the row (see walk-attempts.ts).
   */
  readonly attempts: readonly Attempt[];
  readonly outcome: Outcome;
  /** Status the serving engine answered with; null when no status was received. */
  readonly status: number | null;
  /** Time to the first response headers, ms; null while pending or when none arrived. */
  readonly durationMs: number | null;
  /** Time to the end of the body relayed to the caller, ms; null while pending. */
  readonly totalMs: number | null;
  /** True when the row ended because the caller hung up. */
  readonly clientClosed: boolean;
  /**
   * The stall budget that passed with none of the waiting answer taken before this Hub closed
   * the caller's connection, ms (proxy/app-stall.ts): the caller had stopped reading for at least
   * this long (the watch counts whole periods, so up to twice it). On an inbound row the caller
   * is the sending Hub that stopped reading this forward.
   * null when the row did not end that way: the caller closed its own connection, or any other end.
   */
  readonly stoppedReadingMs: number | null;
  readonly requestError: RequestError | null;
  /** Why a failed row failed, in a few words (for a walk that ran out, the last candidate's reason). */
  readonly reason: string | null;
  /**
   * Whether the request asked for a stream (on /api/chat and /api/generate a body without
   * `stream` does, as Ollama's native routes do); it describes the request, not how an engine
   * happened to answer it.
   */
  readonly stream: boolean;
  /** UTF-8 size of the body as forwarded. */
  readonly bodyBytes: number;
  /** The header deadline each attempt was given, ms. */
  readonly budgetMs: number;
  /**
   * The W3C trace id the request belongs to (32 hex digits): the app's traceparent, or the one
   * the entering Hub started when it exports spans; a peer's inbound row carries the sender's.
   * null: the request belongs to no trace.
   */
  readonly traceId: string | null;
}

/**
 * Every record null, as a fresh object each call: one literal, so every copy shares one hidden
 * class (placement fills a copy in; a copy made by spreading would get a class of its own).
 */
export function nullPlacementRecords(): { -readonly [K in keyof PlacementRecords]: PlacementRecords[K] } {
  return { pin: null, promptCeiling: null, contextCap: null, slots: null, throughput: null, contention: null, affinity: null, withheld: null };
}

export const NULL_PLACEMENT_RECORDS: PlacementRecords = Object.freeze(nullPlacementRecords());

/** The summary block of GET /routing-log. */
export interface RoutingLogSummary {
  /** Random per process: a changed bootId means the log being paged no longer exists. */
  readonly bootId: string;
  /** When this log began (process start), ISO. */
  readonly startedAt: string;
  /** Rows recorded since boot, evicted ones included. */
  readonly totalRecorded: number;
  /** Rows the ring holds now. */
  readonly recorded: number;
  /** Placement time of the oldest row held; null when the ring is empty. */
  readonly oldestAt: string | null;
  readonly counts: {
    readonly served: number;
    readonly failed: number;
    readonly pending: number;
    /** Rows that reached their answer after at least one failover. */
    readonly failedOver: number;
    /** Breakdown inside failed. */
    readonly clientClosed: number;
    readonly requestErrors: number;
    readonly outputFaults: number;
  };
}

export interface RoutingLogPage {
  readonly entries: readonly RoutingLogEntry[];
  /** Pass back as since to receive rows placed or changed at or after it. */
  readonly nextSince: string;
  /** Rows that matched before limit cut the page. */
  readonly matched: number;
  readonly summary: RoutingLogSummary;
}
