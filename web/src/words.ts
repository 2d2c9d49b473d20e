/** Records into the words the user guide uses. The only place the dashboard turns data into sentences. */
import type { ApproveAnswer, ContainerRollup, LocalHardware, LocalPressure, PeerView, PoolStatus, RoutingLogPage, RoutingRow, ThroughputBand } from './types';

export interface Badge {
  readonly text: string;
  readonly tone: 'good' | 'warn' | 'bad' | 'neutral';
  readonly detail: string;
}

/** The Hub Pool badge (the guide's table is empty; docs/dashboard.md lists these). */
export function poolBadge(s: PoolStatus): Badge {
  switch (s.reason) {
    case 'active':
      return s.routingActive
        ? { text: 'Routing', tone: 'good', detail: 'Requests can go to connected Hubs.' }
        : { text: 'On', tone: 'neutral', detail: 'On, with no connected Hub to send work to.' };
    case 'no_peers':
      return noPeerBadge(s.peers);
    case 'partially_disabled':
      return { text: 'Partly off', tone: 'warn', detail: partlyOff(s.directions) };
    case 'disabled_by_setting':
      return { text: 'Off', tone: 'bad', detail: 'Hub Pool is switched off under Controls.' };
    case 'disabled_by_env':
      return { text: "Disabled in this Hub's .env", tone: 'bad', detail: 'HUB_POOL_USER_DISABLED=true is set; remove it and restart the Hub to pool again.' };
  }
}

/**
 * On with no peer to send work to. Pairing is the fix only when nothing is paired: a Hub disabled
 * here wants Enable, an unreachable one comes back by itself (pairing again is the wrong move).
 */
function noPeerBadge(peers: readonly PeerView[]): Badge {
  const disabled = peers.filter((p) => p.status === 'connected' && !p.enabled).length;
  const unreachable = peers.filter((p) => p.status === 'unreachable').length;
  const pending = peers.filter((p) => p.status === 'pending').length;
  const parts = [
    disabled > 0 ? `${hubCount(disabled)} disabled here (Enable under Paired Hubs sends ${disabled === 1 ? 'it' : 'them'} work again)` : null,
    unreachable > 0 ? `${hubCount(unreachable)} unreachable (each rejoins by itself on its next good health check)` : null,
    pending > 0 ? `${hubCount(pending)} still pairing` : null,
  ].filter((p): p is string => p !== null);
  const detail = parts.length === 0 ? 'Hub Pool is on; pair a Hub to start routing.' : `Hub Pool is on, with no Hub to send work to: ${parts.join('; ')}.`;
  return { text: 'No connected Hubs', tone: 'neutral', detail };
}

/**
 * The paired Hubs by what they can do now: connected and taking work from here, then those that
 * read connected but do not (disabled here, or refusing this Hub's calls), then the unreachable.
 * The badge says none is connected when none takes work; this line must not count them as such.
 */
export function pairedHubsWords(paired: readonly PeerView[]): string {
  const connected = paired.filter((p) => p.status === 'connected');
  const disabled = connected.filter((p) => !p.enabled).length;
  const refusing = connected.filter(
    (p) => p.enabled && (p.pairingProblem != null || (p.probeFailure !== null && p.probeFailure.kind !== 'unreachable')),
  ).length;
  const unreachable = paired.filter((p) => p.status === 'unreachable').length;
  return [
    plural(connected.length - disabled - refusing, 'Hub connected', 'Hubs connected'),
    disabled > 0 ? `${disabled} disabled here` : null,
    refusing > 0 ? `${refusing} needing action` : null,
    unreachable > 0 ? `${unreachable} unreachable` : null,
  ]
    .filter((part): part is string => part !== null)
    .join(', ');
}

/** A node's models, each once: two of its engines can hold the same one. */
export function distinctModelNames(backends: readonly { readonly models: readonly string[] }[]): readonly string[] {
  return [...new Set(backends.flatMap((b) => b.models))];
}

/** How many models a node has, each counted once however many engines hold it. */
export function distinctModels(backends: readonly { readonly models: readonly string[] }[]): number {
  return distinctModelNames(backends).length;
}

function hubCount(n: number): string {
  return n === 1 ? '1 Hub' : `${n} Hubs`;
}

/** Which direction is off and by what; both when both are (status says partially_disabled for either). */
function partlyOff({ outbound, inbound }: PoolStatus['directions']): string {
  if (!outbound.enabled && !inbound.enabled)
    return outbound.disabledBy === inbound.disabledBy
      ? `Sending work to peers and taking work from peers are both switched off${disabledWhere(outbound.disabledBy)}.`
      : `Sending work to peers is switched off${disabledWhere(outbound.disabledBy)}, and taking work from peers${disabledWhere(inbound.disabledBy)}.`;
  return !outbound.enabled
    ? `Sending work to peers is switched off${disabledWhere(outbound.disabledBy)}.`
    : `Taking work from peers is switched off${disabledWhere(inbound.disabledBy)}.`;
}

function disabledWhere(by: 'env' | 'setting' | null): string {
  return by === 'env' ? " in this Hub's .env" : by === 'setting' ? ' under Controls' : '';
}

export const TIER_WORDS: Readonly<Record<string, string>> = {
  high: 'High-end',
  'high-end': 'High-end',
  mid: 'Mid-range',
  'mid-range': 'Mid-range',
  cpu: 'CPU only',
  'cpu-only': 'CPU only',
  insufficient: 'Insufficient hardware',
};
const tierName = (tier: string): string => TIER_WORDS[tier.toLowerCase()] ?? tier;

/**
 * A peer's tier. "Yet" only before its first poll (backends null): a peer that answered without
 * one has none to send, for good (detection could not tell, or an older build), and is never
 * given a guessed one.
 */
export const tierWords = (p: Pick<PeerView, 'hardwareTier' | 'backends'>): string =>
  p.hardwareTier !== null ? tierName(p.hardwareTier) : p.backends === null ? 'Tier not reported yet' : 'Tier not reported';

/** This Hub's tier in the words its peers' cards use, with why there is none once detection gave none; null when status has no hardware. */
export function localTierWords(h: LocalHardware | undefined): string | null {
  if (h === undefined) return null;
  if (!h.detected) return 'Tier not detected yet';
  return h.tier === null ? `No tier: ${h.unknownBecause ?? 'detection could not tell'}` : tierName(h.tier);
}

/** A band someone reported, as cihub pool status words it: this Hub's card and a peer's say it alike. */
const pressureBandWords = (band: number): string => `GPU pressure band ${band}`;

/**
 * The GPU-pressure band this Hub advertises, as cihub pool status words it, shortened: no band is
 * "not measured" with why, never a 0 (an idle band is a reading). Null when status has none.
 */
export function localPressureWords(p: LocalPressure | undefined): string | null {
  if (p === undefined) return null;
  if (p.band !== null) return pressureBandWords(p.band);
  if (!p.sampling) return 'GPU pressure not measured (read only while a peer is connected)';
  if (p.noSource) return 'GPU pressure not measured (no source answers; peers rank this Hub mid-band)';
  return p.sampledMsAgo === null ? 'GPU pressure not measured yet' : 'GPU pressure not measured (the last reading is too old)';
}

/**
 * The band a peer advertised, as this Hub holds it (status's peers[].gpuPressure). Null there is
 * no band this Hub trusts: the peer sent none (it cannot measure), sent one out of range, or its
 * last report is older than three polls; that reads "not reported" ("yet" before its first poll),
 * never 0, which is a reading of an idle GPU. Null when status has no such field.
 */
export function peerPressureWords(p: Pick<PeerView, 'gpuPressure' | 'backends'>): string | null {
  if (p.gpuPressure === undefined) return null;
  if (p.gpuPressure !== null) return pressureBandWords(p.gpuPressure);
  return p.backends === null ? 'GPU pressure not reported yet' : 'GPU pressure not reported';
}

/**
 * How old a peer's figures (engines, models, tier, limits) are, when the Hub says they are not
 * current (figuresCurrent false: they are from its last good poll, which a failed check leaves
 * in place). Null while they are current or when there are none.
 */
export function lastSeenWords(p: PeerView, now: number): string | null {
  return p.figuresCurrent === false ? `as last seen, ${ago(p.lastSeenAt, now)}` : null;
}

/**
 * This Hub's engines in one phrase, with the age of the oldest probe answer it rests on: health
 * without an age reads as current, and before any probe answered there is no health to state.
 * "Engines healthy" is said only when every engine answered healthy: with one healthy and another
 * failing or not probed yet it said so too, and an engine not probed yet is counted as neither.
 */
export function localEnginesWords(backends: readonly { readonly healthy: boolean; readonly probedMsAgo?: number | null }[]): string {
  if (backends.length === 0) return 'No engine configured';
  const probed = backends.filter((b) => b.probedMsAgo != null);
  if (probed.length === 0) return 'Engines not probed yet';
  const healthy = probed.filter((b) => b.healthy).length;
  const unprobed = backends.length - probed.length;
  const verdict =
    unprobed === 0 && healthy === probed.length
      ? 'Engines healthy'
      : unprobed === 0 && healthy === 0
        ? 'No healthy engine'
        : `${healthy} of ${backends.length} engines healthy${unprobed === 0 ? '' : `, ${unprobed} not probed yet`}`;
  return `${verdict} (probed ${readingAge(Math.max(...probed.map((b) => b.probedMsAgo!)))})`;
}

/**
 * A peer's container counts, worded as `cihub pool status` words them. Null (sharing off, an
 * older peer build, a stale or rejected report) and a status without the field both read "not
 * reported": drawing either as zero would show a machine we know nothing about as idle.
 */
export function containersWords(c: ContainerRollup | null | undefined): string {
  if (c === null || c === undefined) return 'Containers not reported';
  const gib = c.memoryBytes / 2 ** 30;
  return `Containers: ${c.running} running, ${c.stopped} stopped (${c.total} in all) · ${c.cpuPercent.toFixed(1)}% CPU · ${gib.toFixed(1)} GiB memory`;
}

export const isPaired = (p: PeerView): boolean => p.status === 'connected' || p.status === 'unreachable';
export const isVerified = (p: PeerView): boolean => isPaired(p) && p.lastSeenAt !== null && p.backends !== null;

export interface PeerState {
  readonly label: 'Connected' | 'Unreachable' | 'Needs re-pair' | 'Credentials refused' | 'Cannot authenticate';
  readonly tone: Badge['tone'];
  /** What to do next; null when nothing is needed. */
  readonly next: string | null;
  /** Whether this state is cleared only by the operator (so Unpair is offered in the guide). */
  readonly needsYou: boolean;
}

export function peerState(p: PeerView): PeerState {
  if (p.probeFailure?.kind === 'identity_changed')
    return {
      label: 'Needs re-pair',
      tone: 'bad',
      next: `Its identity changed (for example, its database was recreated), and waiting will not fix that. Next: ${p.probeFailure.action}.`,
      needsYou: true,
    };
  if (p.probeFailure?.kind === 'unauthorized')
    return { label: 'Credentials refused', tone: 'bad', next: `It answers but refuses this Hub. Next: ${p.probeFailure.action}.`, needsYou: true };
  // Nothing was sent, so waiting cannot help: the fix is on this Hub, and the action names it.
  if (p.probeFailure?.kind === 'cannot_authenticate')
    return {
      label: 'Cannot authenticate',
      tone: 'bad',
      next: `This Hub has no credential it can present to it. Next: ${p.probeFailure.action}.`,
      needsYou: true,
    };
  if (p.status === 'unreachable')
    return {
      label: 'Unreachable',
      tone: 'warn',
      next: `No action needed${leftWords(p)}: it rejoins by itself on the first health check that succeeds. Unpair only if you want it out of the pool.`,
      needsYou: false,
    };
  // Still Connected until the third failure in a row: said, so that a peer
  // gone quiet is not shown as healthy meanwhile (cihub pool status says "last probe failed").
  if (p.probeFailure?.kind === 'unreachable') {
    const n = p.consecutiveFailures;
    const since = p.probeFailure.since === null ? '' : ` (no usable answer since ${new Date(p.probeFailure.since).toLocaleTimeString()})`;
    return {
      label: 'Connected',
      tone: 'good',
      next: `${n === 1 ? 'Its last health check' : `Its last ${n} health checks`} failed${since}; three in a row mark it Unreachable.`,
      needsYou: false,
    };
  }
  return { label: 'Connected', tone: 'good', next: null, needsYou: false };
}

/** A peer that said it was shutting down, with when (this browser's clock); '' for any other. */
function leftWords(p: PeerView): string {
  const left = p.leftAt ?? null;
  return left === null ? '' : ` (it said it was shutting down at ${new Date(left).toLocaleTimeString()})`;
}

/** The tags a paired Hub carries wherever it is shown: switched off here, taking no work there, or on the older bearer auth. */
export function peerTags(p: PeerView): string[] {
  return [!p.enabled ? 'Disabled' : null, p.acceptingWork === false ? 'Paused: taking no work' : null, p.authMode === 'bearer' ? 'Legacy auth' : null].filter(
    (t) => t !== null,
  );
}

/**
 * Why a peer has no queue figure: status gives one only for a peer placement may send work to
 * now (src/peers/usable-peers.ts), so a null is never "not reported", it is every reason it is out.
 */
export function notCandidateWords(p: PeerView, outboundOn: boolean): string {
  const why = [
    outboundOn ? null : 'sending work to peers is off on this Hub',
    p.status === 'unreachable' ? 'unreachable' : null,
    p.enabled ? null : 'disabled here',
    p.acceptingWork === false ? 'paused, taking no work' : null,
    // A leaving peer's last report is dropped with its notice, so no report does not mean it never answered.
    p.backends === null ? ((p.leftAt ?? null) !== null ? 'it said it was shutting down' : 'its first health check has not answered') : null,
  ].filter((w) => w !== null);
  return `not a candidate now${why.length === 0 ? '' : `: ${why.join('; ')}`}`;
}

/**
 * A queue figure ranking counts for a peer whose last good report is older than three polls: the
 * mid-load stand-in, not requests in flight there, so it is never worded as that.
 */
export const staleQueueWords = (depth: number): string => `${depth} (no recent report; counted as mid-load)`;

/**
 * The CLI's two Context caps warnings, in the dashboard's words; none when nothing is capped. The
 * Hub decides them (status's contextCaps, src/status/context-caps.ts); this only words them.
 */
export function contextCapWarnings(s: PoolStatus): string[] {
  const { caps } = s.contextCaps;
  const here = `this Hub${s.localNode.nodeFqdn === null ? '' : ` (${s.localNode.nodeFqdn})`}`;
  const uncapped = s.contextCaps.uncapped.map((n) => (n === 'local' ? here : n));
  const warnings: string[] = [];
  // Reported, not an error: a batch node capped low is often deliberate.
  if (caps.length > 1)
    warnings.push(
      `The caps differ (${caps.map((c) => c.toLocaleString()).join(', ')} tokens): a node capped low stops taking requests for larger windows while passing every health check. Check that this is meant.`,
    );
  const one = uncapped.length === 1;
  if (uncapped.length > 0)
    warnings.push(
      `${uncapped.join(', ')} ${one ? 'names' : 'name'} no cap while others do: placement and handouts read that as taking any window, so the largest windows go there. Cap ${one ? 'it' : 'each'} at its OLLAMA_CONTEXT_LENGTH (cihub pool context-cap N on that Hub).`,
    );
  return warnings;
}

/**
 * Why the last-30-minutes figures cover less than 30 minutes, or null when they cover all of it.
 * The page holds at most `kept` rows (the Hub's ring holds as many by default), so on a busy Hub
 * the oldest row it holds can be younger than the window: counts of 0 failed or "no requests"
 * would then be about that shorter span, stated as the whole window.
 */
export function windowCutWords(rows: readonly { readonly timestamp: string }[], evicted: boolean, kept: number, now: number, windowMs: number): string | null {
  if (rows.length === 0 || (!evicted && rows.length < kept)) return null;
  const oldest = rows[rows.length - 1]!.timestamp;
  if (now - Date.parse(oldest) >= windowMs) return null;
  return `The request figures below cover only the requests since ${ago(oldest, now)}: the newest ${rows.length} the routing log holds, not the whole 30 minutes.`;
}

export function ago(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

export const ms = (n: number | null): string => (n === null ? '—' : n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);

/**
 * Whether a node refused the row's request as a bad request: a requestError that blames the
 * request (basis 'node' blames the node's output instead), or any 4xx status, which the spec
 * reads as a refusal even on a row that says served (rows before 2026-09-29 settled that way).
 */
export function isRefused(r: RoutingRow): boolean {
  if (r.requestError !== null) return r.requestError.basis !== 'node';
  return r.status !== null && r.status >= 400 && r.status < 500;
}

/** Whether the dashboard counts the row as failed: a failed row, or a refusal on a row that says served. */
export const isFailure = (r: RoutingRow): boolean => r.outcome === 'failed' || isRefused(r);

/** "1 refused as a bad request", "2 refused as bad requests". */
export const refusedWords = (n: number): string => (n === 1 ? '1 refused as a bad request' : `${n} refused as bad requests`);

type FailedCounts = Pick<RoutingLogPage['summary']['counts'], 'failed' | 'clientClosed' | 'requestErrors' | 'outputFaults'>;

/** The failed count's parts that are not the pool failing to route, in brackets; '' when there are none. */
function failedParts(c: FailedCounts): string {
  const parts = [
    c.clientClosed > 0 ? `${c.clientClosed} abandoned by the caller` : null,
    c.requestErrors > 0 ? refusedWords(c.requestErrors) : null,
    c.outputFaults > 0 ? `${c.outputFaults} answered with unusable output` : null,
  ].filter((p) => p !== null);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/**
 * attempts lists every candidate that failed: first the ones the walk failed over from (as many
 * as failedOverFrom names), then, on a walk that ran out, the last one tried, which it did not.
 */
const passedOver = (r: RoutingRow) => r.attempts.slice(0, r.failedOverFrom.length);
const lastTried = (r: RoutingRow) => r.attempts[r.failedOverFrom.length] ?? null;

/** The failed count with its parts that are not the pool failing to route, as the CLI prints it: "3 failed (1 refused as a bad request)". */
export function failedWords(c: RoutingLogPage['summary']['counts']): string {
  return `${c.failed} failed${failedParts(c)}`;
}

/**
 * The same brackets for rows the dashboard counts itself (Resources), sorted as the Hub's summary
 * sorts them, with a 4xx on a row that says served counted as a refusal.
 */
export function failedRowsParts(rows: readonly RoutingRow[]): string {
  const failed = rows.filter(isFailure);
  const left = failed.filter((r) => !r.clientClosed);
  return failedParts({
    failed: failed.length,
    clientClosed: failed.length - left.length,
    requestErrors: left.filter(isRefused).length,
    outputFaults: left.filter((r) => r.requestError?.basis === 'node').length,
  });
}

/**
 * Rows that failed at `node` and were then sent on to another node: they name that other node, so
 * they are not among `node`'s own rows, yet they are its failures.
 */
export const failedOverFromNode = (rows: readonly RoutingRow[], node: string): RoutingRow[] =>
  rows.filter((r) => r.node !== null && r.node !== node && passedOver(r).some((a) => a.node === node));

/**
 * Resources' "Failed 30m": "3 (1 abandoned by the caller)", then the requests that failed on the
 * node and went on to another, said apart: "0; 3 more failed over to another node".
 */
export function failedRowsWords(rows: readonly RoutingRow[], failedOver: number): string {
  const more = failedOver === 0 ? '' : `; ${failedOver} more failed over to another node`;
  return `${rows.filter(isFailure).length}${failedRowsParts(rows)}${more}`;
}

/** Where a row went, as Recent routing words it. */
export function rowServedBy(r: RoutingRow): string {
  if (r.direction === 'inbound') return `for ${r.node ?? 'a peer'}`;
  if (r.outcome === 'pending') return r.node === null ? 'placing…' : `waiting on ${r.node}`;
  if (r.outcome === 'served' && !isRefused(r)) return r.node ?? 'local';
  // A hang-up row keeps the node it was waiting on; the guide words it as nobody serving. An app
  // that stopped reading did not close its connection: the Hub did, and the words say so.
  if (r.clientClosed) {
    if (r.node === null) return 'No node served this row (the app left before any node was tried)';
    const stalledMs = r.stoppedReadingMs;
    return stalledMs === null
      ? `No node served this row (the app closed its connection while ${r.node} was working on it)`
      : `No node served this row (the app stopped reading for at least ${stalledMs} ms, so the Hub closed its connection while ${r.node} was working on it)`;
  }
  if (isRefused(r)) {
    const signature = r.requestError?.signature ?? 'client-error';
    return `refused by ${r.node ?? 'a node'} as a bad request${signature === 'client-error' ? '' : ` (${signature})`}`;
  }
  if (r.node !== null) return `failed on ${r.node}`;
  const last = lastTried(r);
  return last === null ? 'No node served this row' : `No node served this row (the last candidate tried, ${last.node}, failed)`;
}

/** The row's outcome as the tables show it: outcome, the status when one came back, and why a failed row failed; a refusal is named as one. */
export function rowOutcome(r: RoutingRow): string {
  const status = r.status !== null ? ` (${r.status})` : '';
  if (r.outcome !== 'pending' && !r.clientClosed && isRefused(r)) return `refused${status}`;
  return `${r.outcome}${status}${r.reason !== null && r.outcome === 'failed' ? `: ${r.reason}` : ''}`;
}

export function rowFailovers(r: RoutingRow): string | null {
  const passed = passedOver(r);
  if (passed.length === 0) return null;
  // The engine too, as cihub pool log names it: a walk between two engines of one node read as
  // that node failing over to itself.
  return `Failed over from ${passed.map((a) => `${a.node}${a.backend === null ? '' : ` (${a.backend})`}: ${a.reason}`).join(', then ')}`;
}

/** Outbound rows in the last `windowMs`, placed by this Hub. */
export const recentOutbound = (rows: readonly RoutingRow[], now: number, windowMs: number): RoutingRow[] =>
  rows.filter((r) => r.direction === 'outbound' && now - Date.parse(r.timestamp) <= windowMs);

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** A pairing problem (half paired, crossed requests) in a sentence, with its fix; null when there is none. */
export function pairingProblemWords(p: PeerView): string | null {
  const problem = p.pairingProblem ?? null;
  if (problem === null) return null;
  const next = ` Waiting will not fix this. Next: ${problem.action}.`;
  switch (problem.kind) {
    case 'half_paired_here':
      return `Half paired: ${p.nodeFqdn} never received this Hub’s approval, so it still waits for it.${next}`;
    case 'half_paired_there':
      return `Half paired: ${p.nodeFqdn} approved this Hub’s request, but its confirmation never arrived here.${next}`;
    case 'crossed_requests':
      return `Crossed requests: this Hub and ${p.nodeFqdn} each sent the other a request, and each set the other’s aside.${next}`;
  }
}

/**
 * What to say after Unpair, Reject or Cancel request when the other Hub could not be told
 * (the answer's notified: false). Not told is not known to still hold its half: the notice may
 * have been lost after it acted, or it may be gone; so each says what it may still list and how to
 * remove that there, as the CLI's unpair does.
 */
export function notToldWords(verb: 'unpair' | 'reject' | 'cancel', peer: string, self: string | null): string {
  const command = `cihub pool unpair ${self ?? '<this Hub’s name>'} on ${peer}`;
  switch (verb) {
    case 'unpair':
      return `Unpaired ${peer} here, but ${peer} could not be told, so it may still list this Hub. If it does, remove this Hub there too: Unpair on its Hub Pool page, or ${command}; if not, nothing is left to remove.`;
    case 'reject':
      return `Rejected ${peer} here, but ${peer} could not be told, so its request may still show as waiting there. Cancel it there: Cancel request on its Hub Pool page, or ${command}.`;
    case 'cancel':
      return `Request to ${peer} cancelled here, but ${peer} could not be told, so it may still list the request. Reject it there, or run ${command}.`;
  }
}

/**
 * The requester answered the call back, but with 401: it was reached, and refused the approval,
 * most often because it no longer holds the request (cancelled there, or expired). The Hub says no
 * more than that on purpose; the CLI's approve reads it the same way (src/cli/commands/peers.ts).
 */
const REFUSED_CALL_BACK = 'HTTP 401';

/**
 * What an Approve comes to, in one set of words for every place that approves: the setup guide's
 * Approve step (its status line, and the half-paired Hub's card) and Pending requests on the Hub
 * Pool page. Each once wrote its own, and they drifted: one said a confirmed pairing was listed on
 * both Hubs, the other did not; one sent the operator to fix the requester's HTTPS and to cancel a
 * request the requester may no longer hold. Confirmed: the requester took the approval, so each
 * Hub lists the other as paired. Failed: approved here only (half paired), which waiting does not
 * mend; the way out follows the server's own (src/peers/pairing-problem.ts) and the CLI's approve.
 */
export function approveOutcomeWords(peer: string, self: string | null, answer: ApproveAnswer): { readonly tone: 'good' | 'bad'; readonly text: string } {
  if (answer.callback === 'confirmed') return { tone: 'good', text: `Approved ${peer}. Both Hubs list each other as paired.` };
  const removeThere = `cihub pool unpair ${self ?? '<this Hub’s name>'} on ${peer}`;
  const stuck = 'The two Hubs are half paired, and waiting will not mend it';
  if (answer.reason === REFUSED_CALL_BACK)
    return {
      tone: 'bad',
      text: `Approved ${peer} here, but ${peer} answered the call back and refused it (${answer.reason}): most likely it no longer holds the request (cancelled or expired there). ${stuck}: Unpair ${peer} here, remove this Hub on ${peer} if it still lists it (${removeThere}), then pair again from one Hub.`,
    };
  return {
    tone: 'bad',
    text: `Approved ${peer} here, but the call back to ${peer} failed (${answer.reason ?? 'no reason given'}), so most likely it never received the approval and still waits for it. ${stuck}: first see that HTTPS connections get through in both directions between the two Hubs (cihub pool doctor, run on each, tests that); next Unpair ${peer} here and cancel the request on ${peer} (Cancel request on its Hub Pool page, or ${removeThere}); then pair again from one Hub.`,
  };
}

export interface SpeedLine {
  readonly key: string;
  readonly text: string;
}

interface Timed {
  /** deadline: the reading missed its first-byte deadline, so its rate is an upper bound (the node is at least this slow). */
  readonly bands: readonly Pick<ThroughputBand, 'fromTokens' | 'tokensPerSec' | 'deadline' | 'ageMs'>[];
  readonly decodeTokensPerSec: number | null;
  readonly decodeAgeMs?: number | null;
}

const tps = (n: number): string => `${Math.round(n).toLocaleString()} tokens/s`;

/** A reading's age as the CLI words it (src/cli/render/speed-lines.ts): seconds under a minute, then minutes. */
const readingAge = (ageMs: number): string => (ageMs < 60_000 ? `${Math.round(ageMs / 1000)} s ago` : `${Math.round(ageMs / 60_000)} min ago`);

/** One band: its rate (a bound, marked ≤, when the reading missed its deadline), its size and its age. */
function bandWords(b: Timed['bands'][number]): string {
  const rate = b.deadline ? `≤${tps(b.tokensPerSec)}` : tps(b.tokensPerSec);
  const when = b.deadline ? `missed its deadline, so at least this slow; ${readingAge(b.ageMs)}` : readingAge(b.ageMs);
  return `${rate} reading prompts of ${Math.round(b.fromTokens / 1024)}k tokens or more (${when})`;
}

/** One line per model (and engine) a node was timed at: prompt reading per band, then writing. */
export function speedLine(label: string, t: Timed, source: string): string {
  const bands = [...t.bands].sort((a, b) => a.fromTokens - b.fromTokens).map(bandWords);
  const reading = bands.length === 0 ? 'prompt reading not timed' : bands.join('; ');
  return `${label}: ${reading}, ${source}${t.decodeTokensPerSec === null ? '' : ` (writes ${tps(t.decodeTokensPerSec)}, ${decodeAge(t.decodeAgeMs)})`}`;
}

/** A decode rate's age; a Hub on an older build sends a rate without one, and that is said rather than shown as current. */
const decodeAge = (ageMs: number | null | undefined): string => (ageMs == null ? 'its age not reported' : readingAge(ageMs));
