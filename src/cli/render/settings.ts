/** `cihub pool settings` as a table, and the words for a change made by `cihub pool set`. */
import type { SettingEntry } from '../../config/settings-catalogue.js';
import { columns } from './peers.js';

const shown = (value: unknown): string => (Array.isArray(value) ? `${value.length} pin${value.length === 1 ? '' : 's'}` : JSON.stringify(value));

export function renderSettings(entries: readonly SettingEntry[]): string {
  const rows = [
    ['KEY', 'VALUE', 'DEFAULT', 'RANGE', 'ENV'],
    ...entries.map((e) => [
      e.key,
      shown(e.value),
      shown(e.default),
      e.settable ? e.range : 'set with cihub pool pin / unpin',
      e.lockedBy === null ? '' : `${e.lockedBy} forces ${shown(e.lockedValue)}`,
    ]),
  ];
  const locked = entries.filter((e) => e.lockedBy !== null);
  return [
    ...columns(rows),
    '',
    'Change one with: cihub pool set <KEY> <VALUE>   (true/false, a number, or null where the range allows it)',
    ...(locked.length > 0
      ? [
          `An environment variable overrides ${locked.map((e) => e.key).join(', ')}: a value set here is stored but takes effect only once the variable is removed and the Hub restarted.`,
        ]
      : []),
    '',
  ].join('\n');
}

export function renderSettingChanged(entry: SettingEntry, before: unknown): string {
  const lines = [`${entry.key} is now ${shown(entry.value)} (was ${shown(before)}; default ${shown(entry.default)}).`];
  if (entry.lockedBy !== null)
    lines.push(`${entry.lockedBy} in the Hub's environment still forces ${shown(entry.lockedValue)} until it is removed and the Hub restarted.`);
  return `${lines.join('\n')}\n`;
}
