/**
 * The context-cap findings GET /status carries (spec, "Context caps", seeing it): which nodes the
 * rule reads, the caps they state, and which of them state none while another does. Decided here
 * once, so `cihub pool status`, doctor's F2 and the dashboard's Context caps card only word the
 * records and cannot disagree about when to warn: web/ imports nothing from src/, so a rule kept
 * beside the renderers would be kept twice.
 */
import type { PeerView } from '../peers/peer-view.js';

/** One node as the rule read it. */
export interface ContextCapNode {
  /** 'local' for this Hub, else the peer's name. */
  readonly node: string;
  /** The cap the node states; null when it states none, or when nothing is known of it (known false). */
  readonly maxNumCtx: number | null;
  /**
   * False for a peer whose first health check has not answered: its cap is not known, so it is
   * neither capped nor uncapped. This Hub always knows its own.
   */
  readonly known: boolean;
}

export interface ContextCapFindings {
  /** This Hub, then every connected peer in status order. */
  readonly nodes: readonly ContextCapNode[];
  /** The distinct caps the nodes state, smallest first; empty when no node is capped. */
  readonly caps: readonly number[];
  /**
   * The nodes ('local' or a peer's name, in the order of nodes) that state no cap while another
   * states one; empty when none is capped.
   */
  readonly uncapped: readonly string[];
}

/**
 * What this Hub's cap and its connected peers' caps say together. Caps that disagree are a
 * finding, not a fault: a batch node capped low is often meant. A node with no cap among capped
 * ones is the harder finding, since placement and handouts read no cap as taking any window, so
 * it collects the large windows its engine may not run. A peer that is not connected is left
 * out: it takes no work, so its cap decides nothing.
 */
export function contextCapFindings(
  localMaxNumCtx: number | null,
  peers: readonly Pick<PeerView, 'nodeFqdn' | 'status' | 'backends' | 'maxNumCtx'>[],
): ContextCapFindings {
  const nodes: ContextCapNode[] = [
    { node: 'local', maxNumCtx: localMaxNumCtx, known: true },
    ...peers
      .filter((p) => p.status === 'connected')
      .map((p) => ({ node: p.nodeFqdn, maxNumCtx: p.backends === null ? null : p.maxNumCtx, known: p.backends !== null })),
  ];
  const caps = [...new Set(nodes.map((n) => n.maxNumCtx).filter((c) => c !== null))].sort((a, b) => a - b);
  const uncapped = caps.length === 0 ? [] : nodes.filter((n) => n.known && n.maxNumCtx === null).map((n) => n.node);
  return { nodes, caps, uncapped };
}
