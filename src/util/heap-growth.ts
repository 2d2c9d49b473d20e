/**
 * How far the old generation may grow past what the last full collection kept before V8 starts
 * the next one. A Hub relaying long streams promotes each stream's objects (its walk, sockets,
 * parser state) and drops them when the stream ends, so between full collections its heap fills
 * with garbage; left to its own rule V8 let the heap reach one and a half to twice what was in use
 * (bench/soak, 2026-12-03: heapTotal up to 127-161 MB). That memory is taken from the engines
 * beside the Hub.
 *
 * At 25% the soak's heapTotal peaked at 98-103 MB and RSS rose +88-96 MB over idle, against
 * +137-177 MB without it, for about the same CPU per stream (3.62 against 3.73 ms, GC threads
 * included); the worst second's event-loop p99 read 102-108 ms against 48-85. bench:quick read
 * 1.01x (requests) and 0.99x (token events) the same build's CPU without it: short requests' garbage
 * dies young, which this does not touch. bench/README.md, 2026-12-03 20:25-21:30 UTC.
 */
import v8 from 'node:v8';

/** The default; HUB_HEAP_GROWING_PERCENT sets another, 0 for V8's own rule. */
export const HEAP_GROWING_PERCENT = 25;
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
