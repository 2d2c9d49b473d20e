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

/** What the Context caps block and doctor's F2 decide from: one reading per node, and the two findings. */
export interface ContextCapFindings {
  /** This node, then every connected peer. */
  readonly nodes: readonly { readonly name: string; readonly reading: CapReading }[];
  /** The distinct caps the nodes state, smallest first; empty when no node is capped. */
  readonly caps: readonly number[];
  /** Nodes that name no cap while another node states one; empty when none is capped. */
  readonly uncapped: readonly string[];
}

/**
 * This node and every connected peer, and what their caps say together. Caps that disagree are
 * reported, not failed: a batch node capped low is deliberate. An uncapped node among capped
 * ones is the harder finding: it collects the large windows its own engine may not run. A ?
 * is neither: nothing is known of that node.
 */
export function contextCapFindings(status: PoolStatus): ContextCapFindings {
  const nodes = [
    { name: `${status.localNode.nodeFqdn ?? 'this node'} (this node)`, reading: status.localNode.maxNumCtx ?? ('none' as CapReading) },
    ...status.peers.filter((p) => p.status === 'connected').map((p) => ({ name: p.nodeFqdn, reading: peerCapReading(p) })),
  ];
  const caps = [...new Set(nodes.map((n) => n.reading).filter((r): r is number => typeof r === 'number'))].sort((a, b) => a - b);
  const uncapped = caps.length === 0 ? [] : nodes.filter((n) => n.reading === 'none').map((n) => n.name);
  return { nodes, caps, uncapped };
}

/** What to do about nodes that name no cap among capped ones. */
export function uncappedFix(count: number): string {
  return `cap ${count === 1 ? 'it' : 'each'} at its OLLAMA_CONTEXT_LENGTH (\`cihub pool context-cap N\` there)`;
}

/** The Context caps block: the findings side by side, shown once any node is capped, with the two warnings. */
export function contextCapLines(status: PoolStatus): string[] {
  const { nodes, caps, uncapped } = contextCapFindings(status);
  if (caps.length === 0) return [];
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
