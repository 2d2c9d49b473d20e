/**
 * The window an app should be handed for a model (spec, "Context caps", handing an app its
 * window): the largest cap among the nodes that serve that model, and no cap at all when any of
 * them states none, since that node takes any window. A node serving another model does not
 * count. It used to be the smallest cap, and on 2026-09-21 one 16384-capped batch node (core-17)
 * got ci-hermes on core-2, uncapped and serving the model at 65536, handed HERMES_NUM_CTX=16384,
 * below the 64,000 Hermes needs for tool use. With no peer, this node's own cap applies, which
 * is the same rule over one node.
 */
import type { BackendView } from '../engines/types.js';
import { localCandidates, NOTHING_UNSERVABLE, peerCandidates, type LocalUnservable, type UsablePeer } from './candidates.js';

export interface WindowHandout {
  readonly model: string;
  /** The window to hand an app; null when a node serving the model states no cap (no cap is handed). */
  readonly numCtx: number | null;
  /** Every node that serves the model now ('local' first), with its cap; null is "states none". */
  readonly nodes: readonly { readonly node: string; readonly maxNumCtx: number | null }[];
}

export function windowHandout(
  model: string,
  local: {
    readonly backends: readonly BackendView[];
    readonly maxNumCtx: number | null;
    /** This node's engines that cannot serve a model lately, as placement reads them: such an engine serves nothing now. */
    readonly unservable?: LocalUnservable;
  },
  peers: readonly UsablePeer[],
): WindowHandout {
  // Every engine speaks the OpenAI dialect, so these are every node that serves the model now. A
  // local engine withholding it counts no more than a peer whose unservableModels names it.
  const servesHere = localCandidates(local.backends, model, 'openai', () => 0, local.unservable ?? NOTHING_UNSERVABLE).length > 0;
  // One map, not a peers.find per candidate: quadratic in the pool size otherwise.
  const capByName = new Map(peers.map((p) => [p.name, p.maxNumCtx]));
  const nodes = [
    ...(servesHere ? [{ node: 'local', maxNumCtx: local.maxNumCtx }] : []),
    ...peerCandidates(peers, model, 'openai').map((c) => ({ node: c.node, maxNumCtx: capByName.get(c.node) ?? null })),
  ];
  const caps = nodes.map((n) => n.maxNumCtx);
  const numCtx = caps.length === 0 || caps.some((c) => c === null) ? null : Math.max(...(caps as number[]));
  return { model, numCtx, nodes };
}
