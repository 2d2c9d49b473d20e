/**
 * Closing an undici agent at shutdown: the calls it still runs get a grace to finish, and what is
 * still out after it is cut.
 *
 * Counted and cut through the agent's own per-origin stats, never after agent.close(): close()
 * forgets the agent's connection pools at once (undici 7, Agent[kClose] clears its clients), so
 * agent.stats reads empty from then on and a later agent.destroy() reaches none of them. Shutdown
 * used to close first and destroy after the grace; a call to a hung peer then ran on past the
 * "cut", and the count it logged was of agents that had a call out, not of calls.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from './undici-lean.js';

/** While the grace runs, how often the agent is checked for its last call having finished. */
const IDLE_CHECK_MS = 20;

/** The calls the agent has sent or queued and not yet finished (a response body still being read counts). */
export function callsOut(agent: Agent): number {
  let n = 0;
  for (const origin of Object.values(agent.stats)) n += origin.size;
  return n;
}

/**
 * Waits up to `graceMs` for the agent's calls to finish, then destroys it, cutting the calls still
 * out, and returns how many were cut. Their own handlers see the error and run before this
 * returns: the Hub closes its database next, and a handler that ran after that would write into a
 * closed store.
 */
export async function closeAgent(agent: Agent, graceMs: number): Promise<number> {
  const deadline = performance.now() + graceMs;
  while (callsOut(agent) > 0 && performance.now() < deadline) await sleep(IDLE_CHECK_MS);
  const cut = callsOut(agent);
  // destroy(), not close(), even when nothing is out: a call started after the count would hold close() for as long as it ran.
  await agent.destroy().catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  return cut;
}
