/**
 * llama.cpp's server answers GET /slots with a JSON array, one object per slot (-np / --parallel):
 * is_processing says whether the slot is serving a request now. Builds before is_processing
 * reported `state` instead (0 idle, anything else processing). Untrusted input: entries that are
 * not objects are dropped, a slot whose busy flag cannot be read still counts as a slot, and an
 * answer that is not an array (an error object from a server started with --no-slots, say)
 * reads as not reported. Nothing here throws.
 */
import { MAX_REPORTED_REQUESTS } from './engine-queue.js';

/** Most slots believed: llama-server's -np is a handful, rarely past 64. A longer array is not a slot list. */
export const MAX_LLAMACPP_SLOTS = 1_024;

export interface LlamaSlots {
  /** Entries in the slot list: how many requests the server runs at once. */
  readonly slots: number;
  /** Slots processing a request now; null when no entry said whether it was busy. */
  readonly busy: number | null;
}

/** The slots a /slots body describes; null when it is not a readable slot list. */
export function parseLlamaSlots(body: unknown): LlamaSlots | null {
  if (!Array.isArray(body) || body.length > Math.min(MAX_LLAMACPP_SLOTS, MAX_REPORTED_REQUESTS)) return null;
  let slots = 0;
  let read = 0;
  let busy = 0;
  for (const entry of body as unknown[]) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    slots++;
    const flag = busyFlag(entry as Record<string, unknown>);
    if (flag === null) continue;
    read++;
    if (flag) busy++;
  }
  if (slots === 0) return null;
  return { slots, busy: read === 0 ? null : busy };
}

function busyFlag(slot: Record<string, unknown>): boolean | null {
  if (typeof slot.is_processing === 'boolean') return slot.is_processing;
  if (typeof slot.state === 'number' && Number.isFinite(slot.state)) return slot.state !== 0;
  return null;
}
