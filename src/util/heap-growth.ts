/**
 * How far the old generation may grow past what the last full collection kept before V8 starts
 * the next one. A Hub relaying long streams promotes each stream's objects (its walk, sockets,
 * parser state) and drops them when the stream ends, so between full collections its heap fills
 * with garbage; left to its own rule V8 let the heap reach one and a half to twice what was in use
 * (bench/soak, 2026-12-03: heapTotal up to 127-161 MB). That memory is taken from the engines
 * beside the Hub.
 *
 * Why 100% (doubling) and not less: at 25% the soak's RSS rose +88-108 MB over idle against
 * +137-177 MB without a limit (2026-12-03 20:25, 2026-12-04 03:30), but the streamed cases of
 * bench:proxy, where 32 connections each take a 36 KB answer, paid for it in full collections: at
 * 25% and 50% the Hub served 0.71-0.87x the bare relay's streamed requests a second at 1.41-1.75x
 * its CPU per request, at 100% and with no limit 1.02-1.32x at 0.71-0.94x (four runs at 25%, two
 * at each other setting). At 100% the soak rose +134 MB (target 150) for 3.84 ms of CPU a stream,
 * against 4.2-4.5 at 25%. bench/README.md, 2026-12-04 09:34-10:45 UTC.
 */
import v8 from 'node:v8';

/** The default; HUB_HEAP_GROWING_PERCENT sets another, 0 for V8's own rule. */
export const HEAP_GROWING_PERCENT = 100;
/** V8's own rule lets the heap grow by up to four times what was live, so more than 300% limits nothing. */
export const MAX_HEAP_GROWING_PERCENT = 300;

/**
 * Sets the growth for this process; 0 leaves V8's own rule. Node refuses this V8 flag in
 * NODE_OPTIONS, and V8 reads it afresh at every full collection, so setting it once at start is
 * enough.
 */
export function limitHeapGrowth(percent: number, setFlags: (flags: string) => void = v8.setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
}
