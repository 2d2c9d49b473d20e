/**
 * The routers people use today, as their own documentation describes them, each run as one
 * central router that sees every request (a favour to them: the Hub Pool policies run one
 * router per entry node, each seeing its own forwards live and the rest through health polls).
 * None knows a node's speed, cache or window; each fails over down its own order.
 */
import type { Policy, PolicyFactory, World } from '../policy.js';
import type { TraceRequest } from '../trace.js';

/** Nodes in listing order that hold the request's model (every node holds both models here). */
function holders(world: World): string[] {
  return [...world.engines.keys()];
}

const load = (world: World, node: string) => world.inFlight.get(node) ?? 0;

/** Round-robin: the next node in turn, then the rest in turn (LiteLLM's simple-shuffle in its deterministic form, Olla's round-robin). */
export const roundRobin: PolicyFactory = (world) => {
  let next = 0;
  return {
    name: 'round-robin',
    order(): string[] {
      const nodes = holders(world);
      const start = next++ % nodes.length;
      return [...nodes.slice(start), ...nodes.slice(0, start)];
    },
  };
};

/** Least connections: fewest requests in flight first; ties in listing order (Olla's least-connections, LiteLLM's least-busy). */
export const leastConnections: PolicyFactory = (world) => ({
  name: 'least-connections',
  order(): string[] {
    return holders(world)
      .map((n, i) => ({ n, i, l: load(world, n) }))
      .sort((a, b) => a.l - b.l || a.i - b.i)
      .map((x) => x.n);
  },
});

/**
 * LocalAI's SmartRouter (spec: localai-distributed-mode.md, "idle-first scheduling"): a node
 * that already has the model loaded first; otherwise an idle node, then the least loaded. Read
 * as an order: loaded nodes by load, then unloaded ones by load. It knows what is loaded because
 * it did the loading.
 */
export const smartRouter: PolicyFactory = (world) => ({
  name: 'localai-smartrouter',
  order(r: TraceRequest): string[] {
    const loaded = (n: string) => (r.model === 'embed' ? true : world.engines.get(n)!.resident);
    return holders(world)
      .map((n, i) => ({ n, i, loaded: loaded(n) ? 0 : 1, l: load(world, n) }))
      .sort((a, b) => a.loaded - b.loaded || a.l - b.l || a.i - b.i)
      .map((x) => x.n);
  },
});

/**
 * The oracle: knows every node's true speed, queue, resident window, cache and faults, and
 * puts first the node where the request's expected wait for a first token plus the delay it adds
 * to the prefills already there is least (Engine.estimate). It is greedy, one request at a time,
 * so it is a strong reference, not a proven optimum.
 */
export const oracle: PolicyFactory = (world): Policy => ({
  name: 'oracle',
  order(r: TraceRequest): string[] {
    return holders(world)
      .map((n, i) => {
        const e = world.engines.get(n)!.estimate(r);
        return { n, i, t: e.ownMs + e.imposedMs };
      })
      .sort((a, b) => a.t - b.t || a.i - b.i)
      .map((x) => x.n);
  },
});
