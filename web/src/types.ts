/**
 * The parts of the Hub's wire contracts the dashboard reads (the server's own types are in
 * src/status/pool-status.ts, src/peers/peer-view.ts and src/routing-log/entry.ts). Absent is
 * null, as on the wire.
 */
export type Role = 'operator' | 'read';
export interface SessionInfo {
  readonly signedIn: true;
  readonly role: Role;
  readonly expiresAt: string;
  /** Optional routes this Hub has. */
  readonly features: { readonly discovery: boolean };
}
/** What signing in answers: the session, and the token the page echoes in x-cihub-csrf (no other answer carries it). */
export interface SignedIn extends SessionInfo {
  readonly csrfToken: string;
}

export type DisabledBy = 'env' | 'setting' | null;
export type StatusReason = 'active' | 'no_peers' | 'partially_disabled' | 'disabled_by_env' | 'disabled_by_setting';
export type ProbeFailureKind = 'unreachable' | 'unauthorized' | 'identity_changed' | 'cannot_authenticate';

export interface PeerView {
  readonly id: string;
  readonly nodeFqdn: string;
  readonly direction: 'outbound' | 'inbound';
  readonly status: 'pending' | 'connected' | 'unreachable';
  readonly enabled: boolean;
  readonly authMode: 'signed' | 'bearer' | 'none';
  readonly fingerprint: string | null;
  readonly pinVerified: boolean;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly lastSeenAt: string | null;
  readonly consecutiveFailures: number;
  /** When the peer said it was shutting down; null once a health check answers again (absent from Hubs before this field). */
  readonly leftAt?: string | null;
  /** A pairing state that waiting does not clear and that needs an operator on each Hub; absent from Hubs before this field. */
  readonly pairingProblem?: PairingProblem | null;
  readonly probeFailure: { readonly kind: ProbeFailureKind; readonly since: string | null; readonly action: string } | null;
  readonly acceptingWork: boolean | null;
  readonly inFlightRequests: number | null;
  readonly hardwareTier: string | null;
  /**
   * The GPU-pressure band (0-3) the peer advertised, checked on read (src/status/machine-status.ts);
   * null when it sent none, sent a bad one, or its report is older than three polls. Absent from
   * Hubs before this field.
   */
  readonly gpuPressure?: number | null;
  readonly backends: readonly { readonly kind: string; readonly models: readonly string[] }[] | null;
  /** The prompt ceiling the peer advertises; null when it names none (or has not answered yet: backends null). */
  readonly maxPromptTokens: number | null;
  /** The context cap the peer advertises; null when it names none (or has not answered yet: backends null). */
  readonly maxNumCtx: number | null;
  /** False when the figures above are from the peer's last good poll and not its word now; null before any poll. */
  readonly figuresCurrent: boolean | null;
  readonly forwardedInFlight?: number;
  /** What ranking counts for the peer (its report aged, plus this Hub's forwards); null when it is no candidate. */
  readonly queueDepth?: number | null;
  /** The peer's last report is older than three polls, so queueDepth is the mid-load figure; null when it is no candidate. */
  readonly snapshotStale?: boolean | null;
  /** False when queueDepth is the mid-load stand-in (a stale report, or one without a load); null when it is no candidate. */
  readonly loadReported?: boolean | null;
  /** What this Hub timed the peer at, and what the peer says it measured itself; absent from Hubs before this field. */
  readonly throughput?: { readonly observed: readonly ThroughputEstimate[]; readonly advertised: ThroughputAdvert | null };
  /** The peer's container counts as validated on read; null: not reported (absent from Hubs before this field). */
  readonly containers?: ContainerRollup | null;
}

/** A node's managed containers as counts and totals (src/peers/capabilities.ts). */
export interface ContainerRollup {
  readonly running: number;
  readonly stopped: number;
  readonly total: number;
  /** Summed over the running containers, percent of one core. */
  readonly cpuPercent: number;
  readonly memoryBytes: number;
}

export type PairingProblemKind = 'half_paired_here' | 'half_paired_there' | 'crossed_requests';
export interface PairingProblem {
  readonly kind: PairingProblemKind;
  readonly since: string;
  /** What to do, with both Hubs' names in the commands. */
  readonly action: string;
}

/** One prompt-size band a node was timed in (src/placement/throughput/book.ts). */
export interface ThroughputBand {
  /** The band's lower edge, tokens. */
  readonly fromTokens: number;
  readonly promptTokens: number;
  readonly tokensPerSec: number;
  readonly deadline: boolean;
  readonly ageMs: number;
}

/** A node's readings for one model (and, on this Hub, one engine). */
export interface ThroughputEstimate {
  readonly node: string;
  readonly backendId: string | null;
  readonly model: string;
  readonly bands: readonly ThroughputBand[];
  readonly decodeTokensPerSec: number | null;
  /** How long ago the decode rate was timed; null when there is none. Absent from a Hub that predates it. */
  readonly decodeAgeMs?: number | null;
}

/** What a node advertises of its own readings, per model; decodeAgeMs is null when the node (an older build) sent no age with its rate. */
export type ThroughputAdvert = Readonly<
  Record<string, { readonly bands: readonly ThroughputBand[]; readonly decodeTokensPerSec: number | null; readonly decodeAgeMs?: number | null }>
>;

export interface PoolSettings {
  readonly poolEnabled: boolean;
  readonly poolOutboundEnabled: boolean;
  readonly poolInboundEnabled: boolean;
  readonly poolLocalAffinity: number;
  readonly poolHealthPollSeconds: number;
  readonly poolMaxPromptTokens: number | null;
  readonly [key: string]: unknown;
}

export interface Direction {
  readonly enabled: boolean;
  readonly disabledBy: DisabledBy;
  /** Its own .env flag is set: it stays off whatever the switches say, the master included (src/config/kill-switch.ts). */
  readonly envLocked: boolean;
}

export interface PoolStatus {
  readonly enabled: boolean;
  readonly disabledBy: DisabledBy;
  readonly reason: StatusReason;
  readonly directions: { readonly outbound: Direction; readonly inbound: Direction };
  readonly routingActive: boolean;
  readonly settings: PoolSettings;
  readonly tailscaleAdminApiConfigured: boolean;
  /** expiresInMs: what was left of the PIN by the Hub's clock when it answered; null with no PIN. */
  readonly pairingPin: { readonly active: boolean; readonly expiresAt: string | null; readonly expiresInMs: number | null };
  readonly localNode: {
    readonly nodeFqdn: string | null;
    readonly tailnetSuffix: string | null;
    readonly tailscaleConnected: boolean;
    /** The tailnet the daemon reports (CurrentTailnet.Name); null when it reports none. Absent from Hubs before this field. */
    readonly tailnet?: string | null;
    readonly tailnetSource: 'env' | 'tailscale' | 'none';
    /**
     * nodeUuid and fingerprint are null, with identityError set, when no identity could be made.
     * identityFix is what to do about the error, for its cause; absent from Hubs before it.
     */
    readonly identity: {
      readonly nodeUuid: string | null;
      readonly fingerprint: string | null;
      readonly identityError: string | null;
      readonly identityFix?: string | null;
    } | null;
    readonly peerOriginsMap: { readonly active: boolean; readonly entries: readonly { readonly name: string; readonly origin: string }[] };
    readonly queueDepth: number;
    /** What hardware detection made of this machine (src/machine/hardware-report.ts); absent when status was built without it. */
    readonly hardware?: LocalHardware;
    /** The GPU-pressure band this Hub advertises, and why there is none (src/machine/pressure-sampler.ts); absent with hardware. */
    readonly gpuPressure?: LocalPressure;
    /** This Hub's own readings of its engines; absent from Hubs before this field. */
    readonly throughput?: { readonly estimates: readonly ThroughputEstimate[]; readonly advertised: ThroughputAdvert | null };
    readonly maxPromptTokens: number | null;
    readonly maxPromptTokensSetBy: 'env' | 'setting' | null;
    /** This node's context cap (the window its engine runs); null = no cap. */
    readonly maxNumCtx: number | null;
    readonly backends: readonly {
      readonly id: string;
      readonly kind: string;
      readonly healthy: boolean;
      readonly running: boolean;
      readonly error: string | null;
      /** Age of the answer shown, ms; null before the first probe answered. */
      readonly probedMsAgo: number | null;
      readonly inFlight: number;
      readonly models: readonly string[];
    }[];
  };
  readonly peers: readonly PeerView[];
  readonly pins: readonly {
    readonly scope: 'model' | 'default';
    readonly model: string | null;
    readonly target: string;
    readonly targetNode: string;
    readonly targetAvailable: boolean;
  }[];
  readonly models: readonly { readonly model: string; readonly nodes: readonly string[]; readonly singleNode: boolean }[];
  /** What the nodes' context caps say together, as the Hub decided it (src/status/context-caps.ts). */
  readonly contextCaps: ContextCapFindings;
}

/** The fields of status's localNode.hardware the dashboard words. */
export interface LocalHardware {
  /** False until detection, which runs once in the background at start, has finished. */
  readonly detected: boolean;
  /** Null once detected: detection could not tell, and no tier is advertised (docs/hardware-tier.md). */
  readonly tier: string | null;
  readonly unknownBecause: string | null;
}

/** The fields of status's localNode.gpuPressure the dashboard words. */
export interface LocalPressure {
  /** 0-3; null when there is none to advertise (never a 0). */
  readonly band: number | null;
  /** Whether the sampler reads at all (only while a peer is connected). */
  readonly sampling: boolean;
  /** The last read found no source answering. */
  readonly noSource: boolean;
  /** Age of the last reading; null when there has been none. */
  readonly sampledMsAgo: number | null;
}

/** Status's contextCaps: the Hub's findings, which the dashboard words and never decides. */
export interface ContextCapFindings {
  /** This Hub ('local'), then every connected peer by name; known is false for a peer not polled yet. */
  readonly nodes: readonly { readonly node: string; readonly maxNumCtx: number | null; readonly known: boolean }[];
  /** The distinct caps the nodes state, smallest first; empty when no node is capped. */
  readonly caps: readonly number[];
  /** 'local' or a peer's name, for each node stating no cap while another states one. */
  readonly uncapped: readonly string[];
}

export interface SettingEntry {
  readonly key: string;
  readonly value: unknown;
  readonly default: unknown;
  readonly range: string;
  readonly lockedBy: string | null;
  readonly lockedValue: unknown;
  readonly settable: boolean;
  /** Why the value in force does nothing while another setting stands as it does; null when it acts. */
  readonly inert: { readonly reason: string; readonly because: string; readonly becauseValue: unknown } | null;
}

export interface Attempt {
  readonly node: string;
  readonly backend: string | null;
  readonly status: number | null;
  readonly reason: string;
}

export interface RoutingRow {
  readonly id: string;
  readonly timestamp: string;
  readonly updatedAt: string;
  readonly direction: 'outbound' | 'inbound';
  readonly path: string;
  readonly model: string | null;
  readonly node: string | null;
  readonly backend: string | null;
  readonly failedOverFrom: readonly string[];
  readonly attempts: readonly Attempt[];
  readonly outcome: 'pending' | 'served' | 'failed';
  readonly status: number | null;
  readonly durationMs: number | null;
  readonly totalMs: number | null;
  readonly clientClosed: boolean;
  /** How long the app had taken none of its answer when the Hub closed it, ms; null when the row did not end that way. */
  readonly stoppedReadingMs: number | null;
  /** Set when the row stopped at a node whose answer proved the request bad (or, basis 'node', when the node's 200 was unusable output); null otherwise. */
  readonly requestError: RequestError | null;
  readonly reason: string | null;
  readonly stream: boolean;
}

export interface RequestError {
  /**
   * The label the engine's refusal was sorted under (no-user-query, missing-messages,
   * invalid-message, context-length, chat-template; src/proxy/request-verdict.ts), or
   * client-error for a 4xx passed on by its status alone.
   */
  readonly signature: string;
  readonly basis: 'definitive' | 'confirmed' | 'last-candidate' | 'status' | 'node';
  readonly confirms: string | null;
}

export interface RoutingLogPage {
  readonly entries: readonly RoutingRow[];
  readonly nextSince: string;
  readonly matched: number;
  readonly summary: {
    readonly bootId: string;
    readonly totalRecorded: number;
    readonly recorded: number;
    readonly counts: {
      readonly served: number;
      readonly failed: number;
      readonly pending: number;
      readonly failedOver: number;
      /** The three kinds inside failed that are not the pool failing to route. */
      readonly clientClosed: number;
      readonly requestErrors: number;
      readonly outputFaults: number;
    };
  };
}

/** POST /peers/:id/approve's answer: whether the call back to the requester was answered as a Hub answers it. */
export interface ApproveAnswer {
  readonly callback: 'confirmed' | 'failed';
  /** Why the call back failed, in the Hub's words; null once confirmed. */
  readonly reason: string | null;
}

/** One entry of GET /peers/discoverable, when the Hub has that route. */
export interface DiscoverableHub {
  readonly nodeFqdn: string;
  /** The first label of the name, as the Hub shows it. */
  readonly displayName?: string;
  readonly os?: string | null;
  readonly online?: boolean | null;
  readonly unverified?: boolean;
}

/** How one directory discovery asks answered (GET /peers/discoverable, directories[]). */
export interface DirectoryReport {
  readonly directory: string;
  readonly state: 'ok' | 'failed' | 'not-configured' | 'unavailable';
  readonly named: number | null;
  readonly detail: string | null;
}

/** GET /api/inference/pool/tailscale (operator only): what the Hub knows of its Tailscale (src/tailnet/tailscale-report.ts). */
export interface TailscaleReport {
  /** Where the Hub's name comes from: the daemon, the HUB_NODE_FQDN stand-in, or nowhere. */
  readonly nameSource: 'tailscale' | 'env' | 'none';
  readonly nodeFqdn: string | null;
  /** The tailscale executable the Hub runs; null when none is on its PATH. */
  readonly binary: string | null;
  readonly daemon: {
    readonly answered: boolean;
    readonly connected: boolean;
    readonly magicDnsEnabled: boolean | null;
    /** This node's tailnet addresses, IPv4 first; empty when none reported. Absent from Hubs before this field. */
    readonly tailscaleIps?: readonly string[];
    readonly problem: string | null;
  };
  readonly serve: {
    readonly verdict: 'publishes' | 'absent' | 'other' | 'unknown';
    readonly otherTarget: string | null;
    readonly problem: string | null;
    /** The address the Hub listens on, and whether it takes 127.0.0.1, where the Hub publishes itself. Absent from Hubs before these fields. */
    readonly hubHost?: string;
    readonly reachableFromLoopback?: boolean;
  };
  readonly certificates: { readonly verdict: 'ok' | 'missing' | 'unknown'; readonly detail: string };
  readonly operator: { readonly allowed: boolean | null; readonly account: string; readonly command: string | null; readonly basis: string };
  readonly lastPublish:
    | { readonly kind: 'already' | 'published' }
    | { readonly kind: 'conflict'; readonly otherTarget: string; readonly command: string }
    | { readonly kind: 'refused'; readonly command: string; readonly publishCommand: string; readonly stderr: string }
    | { readonly kind: 'failed'; readonly problem: string; readonly command: string }
    | { readonly kind: 'not-connected'; readonly problem: string }
    | null;
}

/** One line of the Hub's log file (GET /api/hub/logs, operator only). */
export interface HubLogEntry {
  readonly time: string | null;
  /** pino's level number; null for a line that is not pino's. */
  readonly level: number | null;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly cut: boolean;
}

export interface HubLogWindow {
  /** Oldest first. */
  readonly entries: readonly HubLogEntry[];
  readonly cursor: string | null;
  readonly more: boolean;
  readonly olderNotScanned: boolean;
  readonly gap: boolean;
}
