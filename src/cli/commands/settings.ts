/**
 * `cihub pool settings` and `cihub pool set KEY VALUE`: every operator setting from the command
 * line (issue 11, item 5). Validation is the Hub's own (PATCH /settings), so the CLI refuses
 * exactly what the API refuses, in the same words, and a refusal writes nothing.
 */
import type { SettingEntry } from '../../config/settings-catalogue.js';
import { callHub, CliError, findHub, UsageError } from '../hub-client.js';
import { confirm } from '../confirm.js';
import { renderSettingChanged, renderSettings } from '../render/settings.js';
import type { CommonOptions } from './pool.js';

const CATALOGUE = '/api/inference/pool/settings/catalogue';

async function catalogue(opts: CommonOptions): Promise<{ hub: ReturnType<typeof findHub>; entries: SettingEntry[] }> {
  const hub = findHub(opts.dataDir);
  return { hub, entries: (await callHub<{ settings: SettingEntry[] }>(hub, 'GET', CATALOGUE)).settings };
}

export async function poolSettings(opts: CommonOptions): Promise<string> {
  const { entries } = await catalogue(opts);
  return opts.json ? `${JSON.stringify({ settings: entries }, null, 2)}\n` : renderSettings(entries);
}

/**
 * A decimal number as an operator types it: what JSON takes (2, -1, 0.5, 1e3) and a bare
 * fraction (.5), which was sent as text and refused by the Hub with the range it was inside.
 * Not Number()'s other forms (0x10, 0b11, Infinity, a blank), which name no setting's value.
 */
const DECIMAL_NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The typed value a command-line word stands for: true, false, null, a decimal number, else the
 * text, which the Hub then refuses naming the range, as the API would.
 */
export function parseSettingValue(raw: string): unknown {
  const text = raw.trim();
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null') return null;
  if (DECIMAL_NUMBER.test(text)) return Number(text);
  return raw;
}

export async function poolSet(opts: CommonOptions & { key: string; value: string; yes: boolean; assumeYes: boolean }): Promise<string> {
  const { hub, entries } = await catalogue(opts);
  const entry = entries.find((e) => e.key === opts.key);
  if (entry === undefined)
    throw new UsageError(`${opts.key} is not a setting; nothing was changed (\`cihub pool settings\` lists them: ${entries.map((e) => e.key).join(', ')}).`);
  if (!entry.settable) throw new UsageError(`${entry.key} is set with \`cihub pool pin\` and \`cihub pool unpin\`, not with set; nothing was changed.`);
  const value = parseSettingValue(opts.value);
  await confirm(`Set ${entry.key} to ${JSON.stringify(value)} (now ${JSON.stringify(entry.value)}) on this Hub?`, opts);
  try {
    await callHub(hub, 'PATCH', '/api/inference/pool/settings', { [entry.key]: value });
  } catch (err) {
    if (err instanceof CliError && err.hub?.code === 'HUB_ERR_SETTINGS_INVALID')
      throw new CliError(`Nothing was changed: ${err.hub.message ?? `${entry.key} must be ${entry.range}`}.`);
    throw err;
  }
  const afterEntries = (await catalogue(opts)).entries;
  const after = afterEntries.find((e) => e.key === entry.key)!;
  return opts.json ? `${JSON.stringify(after, null, 2)}\n` : renderSettingChanged(after, entry.value, afterEntries);
}
