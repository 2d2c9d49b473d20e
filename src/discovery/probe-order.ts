/**
 * Which named devices a scan probes, and in what order. Pure. A device the tailnet reports as
 * offline goes after every other, whatever its name: a switched-off tailnet machine drops the
 * probe's packets and holds a probe slot for the whole DISCOVERY_PROBE_TIMEOUT_MS, so in name
 * order alone 32 of them sorting before an online Hub spent the scan's budget (eight at a time,
 * four rounds of 5 s in 20 s) and the Hub was never probed, on every rescan alike (audit: 40
 * offline laptops before one online Hub left it listed as not probed). A device whose state no
 * directory gave stays with the online ones: unknown is not offline. The cap takes its slice
 * from this order too, so offline devices are the ones left unprobed past it.
 */

/**
 * `candidates` (in the merge's name order) with every device not known to be offline first and
 * the offline ones after, each group keeping its order, cut to the first `max`.
 */
export function probeOrder<T extends { readonly online: boolean | null }>(candidates: readonly T[], max: number): T[] {
  const offline = candidates.filter((c) => c.online === false);
  const rest = candidates.filter((c) => c.online !== false);
  return [...rest, ...offline].slice(0, max);
}
