/**
 * `cihub pool slots N|clear`: this node's statement of how many requests its Ollama runs at
 * once (OLLAMA_NUM_PARALLEL), written through PATCH /api/inference/preferences, the route that
 * can clear it. The Hub checks the range; a refusal writes nothing. The statement does nothing
 * by itself on this node until poolSlotAwareness is 1 here, nor anywhere while this node has no
 * Ollama or llama.cpp engine, and the answer says both.
 */
import type { PoolSettings } from '../../config/settings-schema.js';
import { countsAsSlots } from '../../placement/steps/slots.js';
import type { PoolStatus } from '../../status/pool-status.js';
import { callHub, CliError, findHub, UsageError } from '../hub-client.js';
import { confirm } from '../confirm.js';
import type { CommonOptions } from './pool.js';

export const CLEAR_WORD = 'clear';

/** The range in this command's own words; the Hub checks it (its answer names the API field and null). */
const SLOTS_RANGE_WORDS = `slots must be a whole number from 1 to 256, or "${CLEAR_WORD}"`;

/** The value a command-line word stands for: null for "clear", a number otherwise (the Hub refuses anything out of range). */
export function parseSlotsArgument(raw: string): number | null {
  const text = raw.trim().toLowerCase();
  if (text === CLEAR_WORD) return null;
  if (!/^\d+$/.test(text)) throw new UsageError(`Nothing was changed: ${SLOTS_RANGE_WORDS}; got ${JSON.stringify(raw)}.`);
  return Number(text);
}

export async function poolSlots(opts: CommonOptions & { value: string; yes: boolean; assumeYes: boolean }): Promise<string> {
  const value = parseSlotsArgument(opts.value);
  const hub = findHub(opts.dataDir);
  await confirm(
    value === null
      ? "Withdraw this node's Ollama slot count?"
      : `State that this node's Ollama runs ${value} request${value === 1 ? '' : 's'} at once (it should equal OLLAMA_NUM_PARALLEL here)?`,
    opts,
  );
  let answer: { ollamaSlots: number | null };
  try {
    answer = await callHub<{ ollamaSlots: number | null }>(hub, 'PATCH', '/api/inference/preferences', { ollamaSlots: value });
  } catch (err) {
    if (err instanceof CliError && err.hub?.code === 'HUB_ERR_SETTINGS_INVALID')
      throw new CliError(`Nothing was changed: ${SLOTS_RANGE_WORDS}; got ${JSON.stringify(opts.value)}.`);
    throw err;
  }
  if (opts.json) return `${JSON.stringify(answer, null, 2)}\n`;
  const settings = await callHub<PoolSettings>(hub, 'GET', '/api/inference/pool/settings');
  const stated =
    answer.ollamaSlots === null
      ? 'This node no longer states a slot count for its Ollama.'
      : `This node now states ${answer.ollamaSlots} Ollama slot${answer.ollamaSlots === 1 ? '' : 's'} (inferenceOllamaSlots); peers read it as ollamaSlots.`;
  const knob =
    settings.poolSlotAwareness === 1
      ? ' poolSlotAwareness is on here, so ranking on this node reads it from the next request.'
      : ' poolSlotAwareness is 0 here, so this node ranks as before; peers with it on read the statement.';
  return `${stated}${knob}\n${answer.ollamaSlots === null ? '' : await noOllamaNote(hub)}`;
}

/**
 * Only Ollama and llama.cpp candidates read a slot count (placement/steps/slots.ts), here and on
 * peers: on a node with neither the statement is stored and does nothing, and the operator is told.
 */
async function noOllamaNote(hub: ReturnType<typeof findHub>): Promise<string> {
  const status = await callHub<Pick<PoolStatus, 'localNode'>>(hub, 'GET', '/api/inference/pool/status');
  if (status.localNode.backends.some((b) => countsAsSlots(b.kind))) return '';
  return 'This node has no Ollama or llama.cpp engine (OLLAMA_URL and LLAMACPP_URL are off), so nothing reads the statement until one is configured.\n';
}
