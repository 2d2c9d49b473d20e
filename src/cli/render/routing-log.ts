/**
 * renderRoutingLog turns one page of GET /routing-log into the text `cihub pool log` prints:
 * a header of counts, one aligned line per row, and under a row the "↳" lines that say in
 * words what its fields mean. The rows hold data only; every sentence an operator reads is
 * made here, from field values and never from an engine's message text.
 */
import type { AffinityRecord, RequestError, RoutingLogEntry, RoutingLogPage } from '../../routing-log/entry.js';
import { qualifies } from '../../placement/steps/affinity.js';
import { lastFailedAttempt } from '../../routing-log/walk-attempts.js';
import { describeFailedBreakdown } from './failed-breakdown.js';
import { contentionLines, inFlightWords, slotsLines, throughputLines } from './placement-lines.js';

export interface RenderOptions {
  /** Epoch ms to measure a pending row's wait against; without it a pending row gets no wait line. */
  readonly now?: number;
}

/** What a line kind may read beside the row itself. */
export interface LineContext {
  readonly nowMs: number | undefined;
}

/**
 * Explainer: one kind of "↳" line, returning what it has to say about a row (nothing when it
 * does not apply). A later placement record (pin, promptCeiling, contention …) is one more
 * function in EXPLAINERS, placed where its lines should read.
 */
export type Explainer = (row: RoutingLogEntry, ctx: LineContext) => readonly string[];

const EXPLAINERS: readonly Explainer[] = [
  affinityLine,
  contextCapLines,
  promptCeilingLines,
  slotsLines,
  throughputLines,
  contentionLines,
  pinLine,
  withheldLines,
  failoverLines,
  hangUpLine,
  requestErrorLine,
  ranOutLine,
  pendingLine,
];

/** Widths that reproduce the spec's sample row exactly; a longer value widens its column for every row on the page. */
const MIN_WIDTHS = [20, 4, 20, 8, 5, 7] as const;
const MARKS = { served: '✓', failed: '✗', pending: '…' } as const;

/** renderRoutingLog returns the page as printable lines (no trailing newline), rows in the order the page holds them. */
export function renderRoutingLog(page: RoutingLogPage, opts: RenderOptions = {}): string {
  const ctx: LineContext = { nowMs: opts.now };
  const rows = page.entries.map((entry) => ({ entry, cells: cells(entry) }));
  const widths = MIN_WIDTHS.map((min, i) => Math.max(min, ...rows.map((row) => row.cells[i]?.length ?? 0)));
  const lines = [headerLine(page)];
  for (const row of rows) {
    lines.push(aligned(row.cells, widths));
    for (const explain of EXPLAINERS) for (const line of explain(row.entry, ctx)) lines.push(`  ↳ ${line}`);
  }
  lines.push(followLine(page));
  return lines.join('\n');
}

/**
 * How to read on from this page: the cursor the API hands a poller, as the flag that sends it.
 * Since is inclusive, so the newest change shown comes back once more; when limit cut a --since
 * page, the rows it left out changed later than that, so the same line reaches them too.
 */
function followLine(page: RoutingLogPage): string {
  return `rows placed or changed from here on: cihub pool log --since ${page.nextSince}`;
}

/** "12 rows · 9 served · 3 failed (…) · 2 failed over", counted over every row the Hub holds. */
export function headerLine(page: RoutingLogPage): string {
  const { recorded, counts } = page.summary;
  const rows = page.entries.length < recorded ? `showing ${page.entries.length} of ${recorded} rows` : plural(recorded, 'row');
  const parts = [rows, `${counts.served} served`, describeFailedBreakdown(counts)];
  if (counts.pending > 0) parts.push(`${counts.pending} pending`);
  if (counts.failedOver > 0) parts.push(`${counts.failedOver} failed over`);
  return parts.join(' · ');
}

/** time, direction, model, node, attempt/candidates, ms, outcome. The ms column is the time to headers, or for a row no node answered, how long it waited (the spec's hang-up row reads 30031 there). */
function cells(row: RoutingLogEntry): readonly string[] {
  return [
    shortTime(row.timestamp),
    row.direction === 'outbound' ? 'out' : 'in',
    row.model ?? '-',
    answeredBy(row) ?? '-',
    `${row.attempt ?? '-'}/${row.candidates}`,
    row.durationMs !== null ? String(row.durationMs) : row.totalMs !== null && row.outcome === 'failed' ? String(row.totalMs) : '-',
    `${MARKS[row.outcome]} ${row.outcome}`,
  ];
}

/** Pads every cell that has a width; the last column (the outcome) runs free. */
function aligned(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' ');
}

/**
 * The node column. Outbound it names the node whose answer the row carries; a node that was
 * only waited on is named in a ↳ line instead, so a hang-up does not read as served there.
 * Inbound, node is the peer that sent the work, known whether or not the engine answered.
 */
function answeredBy(row: RoutingLogEntry): string | null {
  if (row.direction === 'inbound') return row.node;
  return row.status === null ? null : row.node;
}

/** What a context cap did: the nodes it moved back, or that the request landed on one anyway. */
function contextCapLines(row: RoutingLogEntry): readonly string[] {
  const cap = row.contextCap;
  if (cap === null || cap.excluded.length === 0) return [];
  const window =
    cap.source === 'request' ? `num_ctx ${cap.numCtx} (from the request)` : `~${cap.numCtx} tokens (estimated from the prompt; the request named no num_ctx)`;
  const nodes = cap.excluded.map((e) => `${e.node} (cap ${e.maxNumCtx})`).join(', ');
  const lines = [`moved ${nodes} behind nodes whose context cap takes ${window}`];
  if (cap.overridden) lines.push(`placed anyway on ${row.node ?? 'a capped node'} over its context cap: nothing that could take the window answered`);
  return lines;
}

/** What a prompt ceiling did. */
function promptCeilingLines(row: RoutingLogEntry): readonly string[] {
  const ceiling = row.promptCeiling;
  if (ceiling === null || ceiling.excluded.length === 0) return [];
  const nodes = ceiling.excluded.map((e) => `${e.node} (ceiling ${e.maxPromptTokens})`).join(', ');
  const lines = [`moved ${nodes} behind nodes under their prompt ceiling: this prompt is ~${ceiling.estimatedTokens} tokens`];
  if (ceiling.overridden) lines.push(`placed anyway on ${row.node ?? 'a node over its ceiling'} over its prompt ceiling: nothing under its ceiling answered`);
  return lines;
}

/** Engines tried last because they were withheld for bad output: why the best node was skipped. */
function withheldLines(row: RoutingLogEntry): readonly string[] {
  const w = row.withheld;
  if (w === null) return [];
  const lines = w.demoted.map(
    // The engine's id, which tells two engines of one kind apart (ollama-2); a peer's entry names none.
    (d) =>
      `moved ${d.node}${d.backendId === null ? '' : ` (${d.backendId})`} behind every other candidate: withheld for ${d.reason} until ${shortTime(d.until)}`,
  );
  if (w.overridden) lines.push(`placed anyway on the withheld ${row.node ?? 'engine'}: every other candidate failed`);
  return lines;
}

/**
 * An affinity record as a Hub of any build wrote it: one that predates `qualified` (or the
 * margin's `leastLoadedInFlight`, or `loadReported`) leaves the field out, and the CLI can be
 * newer than its Hub.
 */
export type AffinityRecordAsWritten = Omit<AffinityRecord, 'qualified' | 'leastLoadedInFlight' | 'loadReported'> &
  Partial<Pick<AffinityRecord, 'qualified' | 'leastLoadedInFlight' | 'loadReported'>>;

/**
 * Whether affinity's test passed, as the row says it. A row without `qualified` is read from its
 * limit, and from its margin when it names leastLoadedInFlight; null when it has a margin but not
 * that field, since it may have qualified by the margin or not (spec, "Prefix affinity", What it
 * says).
 */
export function affinityQualified(a: AffinityRecordAsWritten): boolean | null {
  if (a.qualified !== undefined) return a.qualified;
  if (a.inFlight === null) return false;
  if (a.affinityMargin > 0 && a.inFlight + 1 > a.maxInFlight && a.leastLoadedInFlight === undefined) return null;
  return qualifies(a.inFlight, a.leastLoadedInFlight ?? null, a.maxInFlight, a.affinityMargin);
}

/**
 * What prefix affinity did: a line for a hit and for a skipped, none for a miss. An unqualified
 * hit says the ranker put the session's node first on its own, so it never reads as affinity
 * following the session. The key is never on the row, so it is never printed.
 */
function affinityLine(row: RoutingLogEntry): readonly string[] {
  const a: AffinityRecordAsWritten | null = row.affinity;
  if (a === null || a.outcome === 'miss' || a.remembered === null) return [];
  const source = a.key === 'header' ? 'session from X-Hub-Pool-Session' : 'session from prompt digest';
  const queue = `${a.inFlight === null ? '? in flight' : inFlightWords(a.inFlight, a.loadReported)}, limit ${a.maxInFlight}${a.affinityMargin > 0 ? `, margin ${a.affinityMargin} over the least-loaded ${a.leastLoadedInFlight ?? '?'}` : ''}`;
  const qualified = affinityQualified(a);
  if (qualified === null) {
    const unsaid = `this Hub's row does not say whether its margin qualified it (${queue}); ${source}`;
    return a.outcome === 'hit'
      ? [`landed on ${a.remembered}, which holds this prompt's prefix; ${unsaid}`]
      : [`prefix affinity did not place this on ${a.remembered}, which holds this prompt's prefix; ${unsaid}`];
  }
  if (a.outcome === 'hit') {
    return qualified
      ? [`prefix affinity placed this on ${a.remembered}, which holds this prompt's prefix (${queue}); ${source}`]
      : [`landed on ${a.remembered}, which holds this prompt's prefix, by ranking alone (affinity stood aside: ${queue}); ${source}`];
  }
  return qualified
    ? [`prefix affinity chose ${a.remembered}, but a later rule put another node first; ${source}`]
    : [`prefix affinity skipped ${a.remembered}, which holds this prompt's prefix: its queue is too deep (${queue}); ${source}`];
}

/** Which pin shaped the order, or that it matched no candidate and the ranked order stood. */
function pinLine(row: RoutingLogEntry): readonly string[] {
  const pin = row.pin;
  if (pin === null) return [];
  const kind = pin.scope === 'model' ? 'model pin' : 'default pin';
  return pin.applied ? [`pinned to ${pin.target} (${kind})`] : [`${kind} to ${pin.target} did not apply: no candidate there, so the ranked order stood`];
}

function failoverLines(row: RoutingLogEntry): readonly string[] {
  return row.failedOverFrom.map((node, i) => {
    const attempt = row.attempts[i];
    if (attempt === undefined) return `failed over from ${node}`;
    const backend = attempt.backend === null ? '' : ` (${attempt.backend})`;
    return `failed over from ${node}${backend}: ${attempt.reason}`;
  });
}

/**
 * A row as a Hub of any build wrote it: one that predates `stoppedReadingMs` leaves it out, and
 * the CLI can be newer than its Hub. Absent reads as null, so such a row's hang-up reads as the
 * caller closing its connection.
 */
type HangUpAsWritten = Omit<RoutingLogEntry, 'stoppedReadingMs'> & Partial<Pick<RoutingLogEntry, 'stoppedReadingMs'>>;

/**
 * A hang-up is the caller's doing: say so, and name the node that was working on it. A caller
 * that stopped reading was closed by this Hub, not by itself, and the line says which.
 */
function hangUpLine(row: HangUpAsWritten): readonly string[] {
  if (!row.clientClosed) return [];
  const waitedMs = row.totalMs ?? row.durationMs;
  const after = waitedMs === null ? '' : ` after ${waitedMs} ms`;
  const stalledMs = row.stoppedReadingMs ?? null;
  if (row.direction === 'inbound') {
    const sender = row.node ?? 'the sending Hub';
    if (stalledMs !== null)
      return [
        `${sender} stopped reading this forward for at least ${stalledMs} ms, so this Hub closed it${after} — the sender's side, not a failure of this node`,
      ];
    return [`${sender} stopped waiting for this forward${after} — the sender's choice, not a failure of this node`];
  }
  const left =
    stalledMs === null
      ? `the app closed its connection${after}`
      : `the app stopped reading for at least ${stalledMs} ms, so this Hub closed its connection${after}`;
  if (row.node === null) return [`${left}, before any node answered — not a routing failure`];
  const state = row.status === null ? 'had not answered yet' : `was part-way through its answer (HTTP ${row.status})`;
  return [`${left}; ${row.node} ${state} — not a routing failure`];
}

const BASIS_WORDS: Record<Exclude<RequestError['basis'], 'node'>, (row: RoutingLogEntry, err: RequestError) => string> = {
  definitive: () => 'no node could have answered it',
  confirmed: (_row, err) => `${err.confirms ?? 'an earlier node'} had answered the same`,
  'last-candidate': () => 'no candidate was left to confirm it',
  status: (row) => `passed back on its HTTP ${row.status ?? '4xx'} status`,
};

/** Names the signature and basis only: the engine's message can quote the prompt. */
function requestErrorLine(row: RoutingLogEntry): readonly string[] {
  const err = row.requestError;
  if (err === null) return [];
  const node = row.node ?? 'the engine';
  if (err.basis === 'node') {
    return [`${node} answered with unusable output: ${err.signature} (basis node) — the node's fault, not the request's`];
  }
  return [`refused as a bad request by ${node}: ${err.signature} (basis ${err.basis}: ${BASIS_WORDS[err.basis](row, err)})`];
}

/** Why a failed row failed when nothing above already says: the caller did not leave and the request was not at fault. */
function ranOutLine(row: RoutingLogEntry): readonly string[] {
  if (row.outcome !== 'failed' || row.clientClosed || row.requestError !== null || row.reason === null) return [];
  if (row.direction === 'inbound') return [`failed: ${row.reason}`];
  if (row.candidates === 0) return [`no node was tried: ${row.reason}`];
  if (row.attempt !== null && row.attempt >= row.candidates) {
    // The candidate the walk ended on is in attempts, not failedOverFrom: named here, since no failover line does.
    const last = lastFailedAttempt(row);
    const on = last === null ? '' : `${last.node}${last.backend === null ? '' : ` (${last.backend})`}: `;
    return row.candidates === 1 ? [`its only candidate failed: ${on}${row.reason}`] : [`all ${row.candidates} candidates failed; the last: ${on}${row.reason}`];
  }
  return [`failed: ${row.reason}`];
}

function pendingLine(row: RoutingLogEntry, ctx: LineContext): readonly string[] {
  if (row.outcome !== 'pending' || ctx.nowMs === undefined) return [];
  const waitedMs = ctx.nowMs - Date.parse(row.timestamp);
  if (!Number.isFinite(waitedMs)) return [];
  const seconds = Math.max(0, Math.floor(waitedMs / 1000));
  // Inbound, node is the peer that sent the work; this Hub is the one serving it on its engines.
  if (row.direction === 'inbound') return [`serving ${row.node ?? 'a peer'}'s forward on this Hub's engines, ${seconds} s so far`];
  const on = row.node === null ? '' : ` on ${row.node}`;
  return [`still waiting${on} after ${seconds} s`];
}

/** "2026-09-21T20:09:06.412Z" → "2026-09-21 20:09:06Z"; a value that is not a time is shown as sent. */
function shortTime(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
