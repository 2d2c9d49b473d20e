/**
 * Placement contracts. Placement is pure and synchronous over snapshots: it never does I/O,
 * so every rule is testable with plain data and every decision explainable from its inputs.
 */
import type { RoutingPin } from '../config/settings-schema.js';
import type { EngineKind } from '../engines/engine-kind.js';
import type { PlacementRecords } from '../routing-log/entry.js';
import type { SlotsInput } from './steps/slots.js';
import type { ThroughputInput } from './throughput-input.js';
import type { ContentionInput } from './steps/contention.js';
import type { AffinityContext } from './steps/affinity.js';

/** One engine on one node that holds the requested model and speaks the request's dialect. */
export interface Candidate {
  /** `${node}/${backendId}` locally, `${node}/pool` for a peer: stable for the request. */
  readonly id: string;
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The local engine's id; null for a peer, which chooses its own engine. */
  readonly backendId: string | null;
  /** The engine kind when known; null for a peer. */
  readonly engine: EngineKind | null;
  /** Base URL to dial: the engine's, or the peer's origin. */
  readonly url: string;
  /**
   * Requests in flight that the ranker sorts on: locally the proxy's own count plus what the engine
   * reported beyond it (local-queue-depth.ts); for a peer, forwards plus what its snapshot counted beyond them.
   */
  readonly queueDepth: number;
  /**
   * False when queueDepth is the neutral assumed load, not a count: a peer whose snapshot is stale
   * or whose last good poll carried no in-flight figure. This node's own engines always count.
   */
  readonly loadReported: boolean;
  /** The peer row's id; null for a local engine. */
  readonly peerId: string | null;
  /** The peer's reported hardware tier; null when local or not reported. */
  readonly hardwareTier: string | null;
  /** GPU-pressure band 0-3 as ranking reads it (unknown = 1, floored by forwards); read only when poolPressureWeight > 0. */
  readonly pressure: number;
}

/** The ranked list as ordered groups: a step may move a candidate into a later tier or reorder inside one, never forward. */
export type Tiers = readonly (readonly Candidate[])[];

export type StepKey = keyof PlacementRecords;

/** What a placement step may read about the request and the pool. */
export interface PlacementContext {
  readonly model: string;
  readonly pins: readonly RoutingPin[];
  /** The app-facing route, and whether the prompt-size rules judge it (see PlacementRoute). */
  readonly route: PlacementRoute;
  /** The pool's own prompt estimate: bytes / 4 of the body as forwarded, the figure the first-byte budget is sized from. */
  readonly estimatedTokens: number;
  /** The context window the request asks for, and where that figure came from. */
  readonly window: RequestedWindow;
  /** This node's clock (ms since the epoch), from the injected Clock: the one "now" every step reads. */
  readonly nowMs: number;
  /**
   * What each node states about the work it takes, keyed by Candidate.node ('local' or a peer's
   * name). A node missing from the map states nothing. Empty for a peer's forward: only the entry
   * node knows whether there was anywhere else to send the work, so inbound work is never judged.
   */
  readonly limits: ReadonlyMap<string, NodeLimits>;
  /** Candidates withheld for bad output, by Candidate.id, with until when and why; absent is not withheld. */
  readonly withheld: ReadonlyMap<string, WithheldFact>;
  /** Slot-aware placement's inputs; absent when poolSlotAwareness is 0 (the step records null). */
  readonly slots?: SlotsInput;
  /** Throughput placement's and the much-slower rule's inputs; absent on routes they do not judge. */
  readonly throughput?: ThroughputInput;
  /** Local engine contention's inputs; absent when it is off or the route is not judged. */
  readonly contention?: ContentionInput;
  /** Prefix affinity's view of this request's session; absent or null when affinity does not apply. */
  readonly affinity?: AffinityContext | null;
}

export interface PlacementRoute {
  readonly path: string;
  /**
   * Chat and completion routes (/v1/chat/completions, /v1/completions, /api/chat, /api/generate):
   * the only ones whose body is a prompt worth judging. Embeddings are many short inputs, and the
   * peer /api/show lookup supplies no prompt at all, so the ceiling and the cap leave both alone.
   */
  readonly judgesPrompt: boolean;
}

/**
 * The window a request runs at. 'request': options.num_ctx on a native Ollama route, which is a
 * load parameter. 'estimated': the request named none (every /v1 call), so it runs at the engine's
 * default window, and the prompt estimate is what has to fit in it.
 */
export interface RequestedWindow {
  readonly numCtx: number;
  readonly source: 'request' | 'estimated';
}

/** One node's statements about the work it takes; null is "states none" (takes any). */
export interface NodeLimits {
  /** Prompt ceiling in estimated tokens (poolMaxPromptTokens, or a peer's advertised maxPromptTokens). */
  readonly maxPromptTokens: number | null;
  /** Context cap: the window its engine runs (inferenceMaxNumCtx, or a peer's advertised maxNumCtx). */
  readonly maxNumCtx: number | null;
}

/** Why a withheld engine is tried last. */
export interface WithheldFact {
  /** ISO time the withhold ends. */
  readonly until: string;
  /** The fault that withheld it (truncated-upstream, degenerate-output). */
  readonly reason: string;
}

export interface PlacementStep<K extends StepKey = StepKey> {
  /** The routing-log field this step writes. */
  readonly key: K;
  /** `earlier` holds the records of the steps that already ran (null for the rest). */
  run(tiers: Tiers, ctx: PlacementContext, earlier?: PlacementRecords): { tiers: Tiers; record: PlacementRecords[K] };
}

export interface Placement {
  /** The failover walk order. */
  readonly order: readonly Candidate[];
  readonly records: PlacementRecords;
}
