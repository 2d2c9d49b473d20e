/**
 * How context caps read on the command line (spec, "Context caps", seeing it). Three readings
 * that never share a cell: a number is the cap routing applies; none is a node that answered
 * and named no cap, which the rules read as "takes any window"; ? is a cap nobody here knows (a
 * peer not polled yet). None is never drawn as ?, nor an absent cap as a number: the difference
 * is the whole finding.
 */
import type { PeerView } from '../../peers/peer-view.js';
import type { PoolStatus } from '../../status/pool-status.js';
import { columns } from './peers.js';

export type CapReading = number | 'none' | '?';

/** A peer's cap as this Hub knows it; ? until its first capabilities snapshot. */
export function peerCapReading(p: Pick<PeerView, 'backends' | 'maxNumCtx'>): CapReading {
  if (p.backends === null) return '?';
  return p.maxNumCtx ?? 'none';
}

/** A peer's prompt ceiling the same way. */
export function peerCeilingReading(p: Pick<PeerView, 'backends' | 'maxPromptTokens'>): CapReading {
  if (p.backends === null) return '?';
  return p.maxPromptTokens ?? 'none';
}

export function capText(reading: CapReading): string {
  return typeof reading === 'number' ? String(reading) : reading;
}

/** A node of the status document's context-cap findings, in the words of the Context caps block and doctor's F2. */
function capNodeName(status: PoolStatus, node: string): string {
  return node === 'local' ? `${status.localNode.nodeFqdn ?? 'this node'} (this node)` : node;
}

/** The findings' nodes, each named and read as the block reads it; the Hub decided which nodes these are. */
export function capNodeReadings(status: PoolStatus): { readonly name: string; readonly reading: CapReading }[] {
  return status.contextCaps.nodes.map((n) => ({ name: capNodeName(status, n.node), reading: n.known ? (n.maxNumCtx ?? 'none') : '?' }));
}

/** The nodes that name no cap among capped ones, named as the block and F2 name them. */
export function uncappedNames(status: PoolStatus): string[] {
  return status.contextCaps.uncapped.map((n) => capNodeName(status, n));
}

/** What to do about nodes that name no cap among capped ones. */
export function uncappedFix(count: number): string {
  return `cap ${count === 1 ? 'it' : 'each'} at its OLLAMA_CONTEXT_LENGTH (\`cihub pool context-cap N\` there)`;
}

/** The Context caps block: the findings side by side, shown once any node is capped, with the two warnings. */
export function contextCapLines(status: PoolStatus): string[] {
  const { caps } = status.contextCaps;
  if (caps.length === 0) return [];
  const nodes = capNodeReadings(status);
  const uncapped = uncappedNames(status);
  const lines = ['', "Context caps (the window each node's engine runs; none takes any window, ? is not known here)"];
  lines.push(...columns(nodes.map((n) => [n.name, capText(n.reading)])).map((l) => `  ${l}`));
  if (caps.length > 1) {
    lines.push(
      `  ! caps differ (${caps.join(', ')}): a node capped low stops taking requests for larger windows while passing every health check; check that this is meant`,
    );
  }
  if (uncapped.length > 0) {
    lines.push(
      `  ! ${uncapped.join(', ')} ${uncapped.length === 1 ? 'names' : 'name'} no cap while others do: placement and handouts read that as taking any window, so the largest windows go there; ${uncappedFix(uncapped.length)}`,
    );
  }
  return lines;
}
