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

/**
 * The Context caps block: this node and every connected peer side by side, shown once any node
 * is capped, with the two warnings. Caps that disagree are reported, not failed: a batch node
 * capped low is deliberate. An uncapped node among capped ones is the harder finding: it collects
 * the large windows its own engine may not run.
 */
export function contextCapLines(status: PoolStatus): string[] {
  const nodes: { name: string; reading: CapReading }[] = [
    { name: `${status.localNode.nodeFqdn ?? 'this node'} (this node)`, reading: status.localNode.maxNumCtx ?? 'none' },
    ...status.peers.filter((p) => p.status === 'connected').map((p) => ({ name: p.nodeFqdn, reading: peerCapReading(p) })),
  ];
  const numbers = nodes.map((n) => n.reading).filter((r): r is number => typeof r === 'number');
  if (numbers.length === 0) return [];
  const lines = ['', "Context caps (the window each node's engine runs; none takes any window, ? is not known here)"];
  lines.push(...columns(nodes.map((n) => [n.name, capText(n.reading)])).map((l) => `  ${l}`));
  if (new Set(numbers).size > 1) {
    lines.push(
      `  ! caps differ (${[...new Set(numbers)].sort((a, b) => a - b).join(', ')}): a node capped low stops taking requests for larger windows while passing every health check; check that this is meant`,
    );
  }
  const uncapped = nodes.filter((n) => n.reading === 'none');
  if (uncapped.length > 0) {
    lines.push(
      `  ! ${uncapped.map((n) => n.name).join(', ')} ${uncapped.length === 1 ? 'names' : 'name'} no cap while others do: placement and handouts read that as taking any window, so the largest windows go there; cap ${uncapped.length === 1 ? 'it' : 'each'} at its OLLAMA_CONTEXT_LENGTH (\`cihub pool context-cap N\` there)`,
    );
  }
  return lines;
}
