/**
 * What `cihub pool status` says about slots and measured speed: this node's slot statement and
 * whether the knob is on here, and per node the prefill bands it was timed at (what this node
 * timed, and what each peer advertises), each with its size, rate and age.
 */
import type { PoolStatus } from '../../status/pool-status.js';
import type { BandView, EstimateView } from '../../placement/throughput/book.js';
import type { ThroughputAdvert } from '../../peers/throughput-advert.js';

/** The value of this node's "ollama slots" field; null when the Hub did not report one (an older build). */
export function slotsText(node: PoolStatus['localNode']): string | null {
  if (node.ollamaSlots === undefined) return null;
  const knob = node.slotAwareness ? 'slot awareness on here' : 'slot awareness off here: ranking does not read it';
  return node.ollamaSlots === null ? `not stated (${knob})` : `${node.ollamaSlots} (${knob})`;
}

/**
 * An age below zero is a reading timed before the Hub's wall clock was set back (half an
 * hour after a two-hour step, one showed as `-90 min ago`). It is shown as taken now, as
 * the advert wire already reads one (peers/throughput-advert.ts, ageOnTheWire).
 */
function minutes(ageMs: number): string {
  const ms = Math.max(0, ageMs);
  return ms < 60_000 ? `${Math.round(ms / 1000)} s ago` : `${Math.round(ms / 60_000)} min ago`;
}

function bandText(b: Pick<BandView, 'fromTokens' | 'promptTokens' | 'tokensPerSec' | 'deadline' | 'ageMs'>): string {
  const rate = b.deadline ? `≤${Math.round(b.tokensPerSec)} tok/s (missed its deadline)` : `${Math.round(b.tokensPerSec)} tok/s`;
  return `${b.fromTokens}+: ${rate} on ${b.promptTokens} tokens, ${minutes(b.ageMs)}`;
}

/** The decode rate with its age; a peer on an older build sends a rate without one, which is said rather than left to read as current. */
function decodeText(rate: number | null, ageMs: number | null | undefined): string[] {
  if (rate === null) return [];
  return [`decode ${Math.round(rate)} tok/s${ageMs == null ? ' (its age not reported)' : `, ${minutes(ageMs)}`}`];
}

function estimateLine(who: string, e: EstimateView): string {
  return `  ${who} ${e.model}: ${[...e.bands.map(bandText), ...decodeText(e.decodeTokensPerSec, e.decodeAgeMs)].join(' · ')}`;
}

function advertLines(who: string, advert: ThroughputAdvert | null): string[] {
  if (advert === null) return [];
  return Object.entries(advert).map(
    ([model, m]) => `  ${who} ${model} (advertised): ${[...m.bands.map(bandText), ...decodeText(m.decodeTokensPerSec, m.decodeAgeMs)].join(' · ')}`,
  );
}

/** The "Measured speed" block; empty when the Hub reported no throughput (an older build). */
export function speedLines(status: PoolStatus): string[] {
  const local = status.localNode.throughput;
  if (local === undefined) return [];
  const lines = ['', 'Measured speed (prefill per prompt-size band, in estimated tokens)'];
  for (const e of local.estimates) lines.push(estimateLine(`local ${e.backendId ?? ''}`.trim(), e));
  for (const p of status.peers) {
    const t = p.throughput;
    if (t === undefined) continue;
    for (const e of t.observed) lines.push(estimateLine(`${p.nodeFqdn} (timed here)`, e));
    lines.push(...advertLines(p.nodeFqdn, t.advertised));
  }
  if (lines.length === 2) lines.push('  nothing timed yet: chat and completion prompts of 4,096 estimated tokens or more are timed');
  return lines;
}

/** Each peer's stated slots, for the lines under its row; null when it stated none. */
export function peerSlotsNote(p: PoolStatus['peers'][number]): string | null {
  return p.ollamaSlots === undefined || p.ollamaSlots === null ? null : `states ${p.ollamaSlots} Ollama slot${p.ollamaSlots === 1 ? '' : 's'}`;
}
