/**
 * The "↳" lines `cihub pool log` prints for slot-aware placement, throughput placement (with
 * the much-slower rule) and local engine contention, made from the row's records alone.
 */
import type { RoutingLogEntry } from '../../routing-log/entry.js';
import { names } from '../../routing-log/overridden.js';
import type { BusyWith, ContentionDemotion, SlotDemotion, ThroughputEstimate } from '../../routing-log/placement-records.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const windowOf = (n: number | null) => (n === null ? 'the default window' : `num_ctx ${n}`);

/**
 * A queue depth as the ranker sorted on it; for a peer that reported no load it is the neutral
 * assumed figure, and says so. A row from a Hub older than loadReported leaves it out: a count.
 */
export const inFlightWords = (n: number, loadReported: boolean | null | undefined): string =>
  loadReported === false ? `${n} in flight assumed, no load reported` : `${n} in flight`;

const slotText = (d: SlotDemotion) => `${d.node} (${inFlightWords(d.inFlight, d.loadReported)}, ${d.slots} slots)`;

/**
 * "moved beta-max (2 in flight, 2 slots) behind nodes with a free slot"; "placed anyway …" when the
 * row settled on a node that was moved (overridden); and, when every node that states slots was
 * full so nothing moved, a line saying so: the request queued on a full engine, and the operator
 * reading the log should not have to work out why no "moved" line came with it.
 */
export function slotsLines(row: RoutingLogEntry): readonly string[] {
  const s = row.slots;
  if (s === null) return [];
  const lines = s.demoted.map((d) => `moved ${slotText(d)} behind nodes with a free slot`);
  // The entry the row settled on, matched as `overridden` was decided (by engine id locally).
  const served = s.overridden && row.node !== null ? s.demoted.find((d) => names(d, row.node!, row.backendId)) : undefined;
  if (served !== undefined) lines.push(`placed anyway with every slot full on ${slotText(served)}: nothing with a free slot answered`);
  if (s.allFull) lines.push(`every slot full on ${s.full.map(slotText).join(', ')}: none had a free one to go ahead, so the ranker's order stood`);
  return lines;
}

function prediction(e: ThroughputEstimate): string {
  const read = e.extrapolated
    ? `read forward from ${e.fromPromptTokens} tokens at ${e.tokensPerSec} tok/s`
    : `measured at ${e.tokensPerSec} tok/s on ${e.fromPromptTokens} tokens`;
  return `predicted ${seconds(e.predictedMs)}${e.deadline ? ' or more (a missed deadline)' : ''}, ${read}, ${e.source}`;
}

/** Which requests a measurement, or the lack of one, moved. */
export function throughputLines(row: RoutingLogEntry): readonly string[] {
  const t = row.throughput;
  if (t === null) return [];
  const lines: string[] = [];
  const budget = `the ${seconds(t.budgetMs)} budget for ~${t.estimatedTokens} tokens`;
  for (const e of t.estimates) if (e.moved) lines.push(`moved ${e.node} behind nodes that meet ${budget}: ${prediction(e)}`);
  const kept = t.estimates.filter((e) => e.slow && !e.moved);
  if (kept.length > 0)
    lines.push(
      `kept ${kept.map((e) => `${e.node} (predicted ${seconds(e.predictedMs)})`).join(', ')} in place though predicted to miss ${budget}: nothing ranked with ${kept.length === 1 ? 'it' : 'them'} could go first`,
    );
  for (const u of t.unmeasured)
    lines.push(
      `moved ${u.node} behind a node measured to meet the budget: nothing has timed it for ~${t.estimatedTokens} tokens${u.prior === 'cpu-only' ? ', and it reports a CPU-only tier' : ''}`,
    );
  for (const d of t.slowerDemoted) {
    lines.push(
      `moved ${d.node} (predicted ${seconds(d.predictedMs)}, ${inFlightWords(d.inFlight, d.loadReported)}) behind ${d.fasterNode} (predicted ${seconds(d.fasterMs)}, ${inFlightWords(d.fasterInFlight, d.fasterLoadReported)}): much slower than a node as free`,
    );
  }
  if (t.overridden) {
    const e = row.node === null ? undefined : t.estimates.find((x) => x.moved && names(x, row.node!, row.backendId));
    lines.push(`placed anyway on ${row.node ?? 'a slow node'}${e ? `, ${prediction(e)}` : ''}: nothing ahead of it answered`);
  }
  return lines;
}

function busyText(d: ContentionDemotion): string {
  const busy = d.busyWith.map((b: BusyWith) => `${b.model} at ${windowOf(b.numCtx)}`).join(', ');
  return `busy with ${busy}; this one at ${windowOf(d.runsAt)}`;
}

/** The four contention lines of the spec. */
export function contentionLines(row: RoutingLogEntry): readonly string[] {
  const c = row.contention;
  if (c === null) return [];
  const lines: string[] = [];
  for (const d of c.demoted) {
    const name = d.node;
    const servedHere = row.node !== null && names(d, row.node, row.backendId) && row.status !== null;
    if (d.behind.length > 0) {
      lines.push(
        c.overridden && servedHere
          ? `placed anyway on ${name} (${busyText(d)}): nothing it gave way to answered`
          : `moved ${name} (${busyText(d)}) behind ${d.behind.join(', ')}`,
      );
    } else if (servedHere && d.overriddenBy === 'affinity') {
      lines.push(`kept ${name} (${busyText(d)}) first: it holds this session's prompt prefix, which prefix affinity follows over contention`);
    } else if (servedHere) {
      // Contention looks only within the group an earlier step left the engine in: a node that
      // step moved behind it (slots, throughput) is after it too, and may be idle, so the line
      // names that reason beside "busier" rather than calling every such node busier.
      lines.push(`kept ${name} (${busyText(d)}) first: every node after it was busier, or moved behind it by a line above`);
    }
  }
  return lines;
}
