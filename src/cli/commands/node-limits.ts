/**
 * `cihub pool ceiling N|clear` and `cihub pool context-cap N|clear`: this node's two statements
 * about the work it takes. Both write one setting through PATCH /settings, so the Hub checks
 * the value and a refusal changes nothing.
 */
import type { PoolSettings } from '../../config/settings-schema.js';
import type { PoolStatus } from '../../status/pool-status.js';
import { callHub, CliError, findHub, UsageError } from '../hub-client.js';
import { fetchPoolStatusWithoutCaps } from '../fetch-pool-status.js';
import { confirm } from '../confirm.js';
import type { CommonOptions } from './pool.js';

type LimitKey = 'poolMaxPromptTokens' | 'inferenceMaxNumCtx';

/** N as a whole number, or null for `clear`; anything else is refused before the Hub is asked. */
export function parseLimitValue(raw: string, what: string): number | null {
  const text = raw.trim().toLowerCase();
  if (text === 'clear') return null;
  if (!/^\d+$/.test(text)) throw new UsageError(`Nothing was changed: ${what} must be a whole number of tokens, or clear; got ${JSON.stringify(raw)}.`);
  return Number(text);
}

async function setLimit(
  key: LimitKey,
  value: number | null,
  opts: CommonOptions & { yes: boolean; assumeYes: boolean },
  question: string,
): Promise<Omit<PoolStatus, 'contextCaps'>> {
  const hub = findHub(opts.dataDir);
  await confirm(question, opts);
  try {
    await callHub<PoolSettings>(hub, 'PATCH', '/api/inference/pool/settings', { [key]: value });
  } catch (err) {
    if (err instanceof CliError && err.hub?.code === 'HUB_ERR_SETTINGS_INVALID') throw new CliError(`Nothing was changed: ${err.hub.message ?? key}.`);
    throw err;
  }
  return fetchPoolStatusWithoutCaps(hub);
}

export async function poolCeiling(opts: CommonOptions & { value: string; yes: boolean; assumeYes: boolean }): Promise<string> {
  const value = parseLimitValue(opts.value, 'the prompt ceiling');
  const status = await setLimit(
    'poolMaxPromptTokens',
    value,
    opts,
    value === null ? "Clear this node's prompt ceiling?" : `Set this node's prompt ceiling to ${value} estimated tokens?`,
  );
  const node = status.localNode;
  if (opts.json)
    return `${JSON.stringify({ maxPromptTokens: node.maxPromptTokens, maxPromptTokensSetBy: node.maxPromptTokensSetBy, setting: status.settings.poolMaxPromptTokens }, null, 2)}\n`;
  const saved = value === null ? 'The poolMaxPromptTokens setting is cleared.' : `The poolMaxPromptTokens setting is ${value}.`;
  if (node.maxPromptTokensSetBy === 'env')
    return `${saved} HUB_POOL_MAX_PROMPT_TOKENS=${node.maxPromptTokens} in this Hub's environment still decides the ceiling in force.\n`;
  return value === null
    ? `${saved} This node has no prompt ceiling: it takes prompts of any size.\n`
    : `${saved} Prompts estimated above ${value} tokens go to other nodes first; this node still serves them when nothing else can.\n`;
}

export async function poolContextCap(opts: CommonOptions & { value: string; yes: boolean; assumeYes: boolean }): Promise<string> {
  const value = parseLimitValue(opts.value, 'the context cap');
  const status = await setLimit(
    'inferenceMaxNumCtx',
    value,
    opts,
    value === null ? "Clear this node's context cap?" : `Set this node's context cap to num_ctx ${value} (it should equal OLLAMA_CONTEXT_LENGTH here)?`,
  );
  if (opts.json) return `${JSON.stringify({ maxNumCtx: status.localNode.maxNumCtx }, null, 2)}\n`;
  return value === null
    ? 'This node has no context cap: the pool reads it as taking any window.\n'
    : `This node's context cap is num_ctx ${value}: requests for a larger window go to nodes that can take it first, and handouts for models only this node serves are capped at it.\n`;
}
