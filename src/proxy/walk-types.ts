/**
 * The contracts of one request's walk: what it needs from the Hub, what it knows about the
 * request, and how a committed answer can end badly.
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { RoutingLogEntry } from '../routing-log/entry.js';
import type { Candidate } from '../placement/types.js';
import type { InFlight } from './in-flight.js';
import type { OutputFault } from './output-check.js';
import type { RoutedRoute } from './route-table.js';
import type { WithholdBook } from './withhold-book.js';
import type { EngineKind } from '../engines/engine-kind.js';

export interface RowWriter {
  update(id: string, patch: Partial<RoutingLogEntry>): void;
  settle(id: string, patch: Partial<RoutingLogEntry>): void;
}

export interface WalkDeps {
  readonly dispatcher: Dispatcher;
  readonly rows: RowWriter;
  readonly inFlight: InFlight;
  readonly logger: Logger;
  /** Headers that authenticate this Hub to a peer for one forward, or why there are none. */
  readonly peerAuth: (peerId: string, method: string, path: string, body: Buffer) => Promise<Record<string, string> | string>;
  /** A peer refused this Hub itself (unmarked 401/403/404): forget its capabilities until its next good poll. */
  readonly onPeerRefused: (peerId: string) => void;
  /** A peer's engine refused the key the peer holds for it. */
  readonly onEngineRefusal: (peer: string, engine: string | null, status: number) => void;
  /** Output faults per node, engine and model: two in five minutes withhold that engine for that model. */
  readonly outputFaults: WithholdBook;
  /** Local engines' failures per backend and model: two 5xx in five minutes withhold that model there. */
  readonly unservable: WithholdBook;
  /** A local backend's model was withheld or released: its snapshot is stale now. */
  readonly onWithholdChange: (backendId: string, model: string, withheld: boolean, reason: string) => void;
}

/** How a committed answer ended, when it did not end well. */
export type BodyFault = { readonly kind: 'output'; readonly fault: OutputFault } | { readonly kind: 'dropped' };

export interface WalkRequest {
  readonly requestId: string;
  readonly route: RoutedRoute;
  readonly model: string;
  readonly body: Buffer;
  readonly stream: boolean;
  readonly order: readonly Candidate[];
  readonly budgetMs: number;
  /** performance.now() when the request arrived: durations are measured from here. */
  readonly startedAt: number;
  readonly accept: string | undefined;
  readonly res: ServerResponse;
  /** On an inbound row, the peer that sent the work: the row names it instead of the engine's node. */
  readonly rowNode: string | null;
  /** options.num_ctx on a native route: the window an Ollama candidate runs the request at. */
  readonly numCtx: number | null;
}

/** A 500 whose body was a verdict on the request, kept while the walk asks another node. */
export interface VerdictResponse {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: Buffer;
  readonly backend: EngineKind | null;
}

