/**
 * Releases a withheld model when its engine shows it resident (spec, "When a node lists a model
 * it cannot actually serve"): Ollama's /api/ps listing the model proves it loads, which clears
 * the record and its backoff outright. /api/ps is asked only while something is withheld on
 * that engine, so an untroubled node's health probe stays a single request.
 */
import type { Dispatcher } from 'undici';
import type { BackendView } from '../engines/types.js';
import { residentModels } from '../engines/engine-answers.js';
import { ENGINE_LISTING_MAX_BYTES, getJson, PROBE_TRANSPORT_TIMEOUT_MS } from '../engines/probe-fetch.js';
import { isSameModel } from '../engines/model-name.js';
import { engineModelKey, type WithholdBook } from './withhold-book.js';

/** How often withheld models are checked for residency. */
export const RESIDENCY_CHECK_MS = 15_000;

export { residentModels };

/** Checks each Ollama engine with a withheld model; returns the (backend, model) pairs released. */
export async function releaseResident(
  backends: readonly BackendView[],
  book: WithholdBook,
  dispatcher: Dispatcher,
  onRelease: (backendId: string, model: string) => void,
): Promise<Array<{ backendId: string; model: string }>> {
  const withheld = book.withheld();
  if (withheld.length === 0) return [];
  const released: Array<{ backendId: string; model: string }> = [];
  for (const backend of backends) {
    if (backend.kind !== 'ollama') continue;
    const prefix = engineModelKey('local', backend.backendId, '');
    const mine = withheld.filter((w) => w.key.startsWith(prefix)).map((w) => w.key.slice(prefix.length));
    if (mine.length === 0) continue;
    const answer = await getJson(`${backend.url}/api/ps`, dispatcher, AbortSignal.timeout(PROBE_TRANSPORT_TIMEOUT_MS), ENGINE_LISTING_MAX_BYTES);
    const resident = answer.ok ? residentModels(answer.json) : null;
    if (resident === null) continue;
    for (const model of mine) {
      if (!resident.some((r) => isSameModel('ollama', r, model))) continue;
      book.clear(engineModelKey('local', backend.backendId, model));
      released.push({ backendId: backend.backendId, model });
      onRelease(backend.backendId, model);
    }
  }
  return released;
}
