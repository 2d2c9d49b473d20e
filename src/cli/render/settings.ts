/** `cihub pool settings` as a table, and the words for a change made by `cihub pool set`. */
import type { SettingEntry } from '../../config/settings-catalogue.js';
import { columns } from './peers.js';

/** The sentence for a setting whose value does nothing while another stands as it does. */
export function inertSentence(entry: SettingEntry): string | null {
  if (entry.inert === null) return null;
  switch (entry.inert.reason) {
    case 'prefix-affinity-off':
      return `${entry.key} is ${shown(entry.value)} but does nothing: prefix affinity is off while ${entry.inert.because} is ${shown(entry.inert.becauseValue)}, and the margin only widens a limit that is on (set ${entry.inert.because} above 0 to use it).`;
  }
}

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
  const inert = entries.map(inertSentence).filter((line) => line !== null);
  return [
    ...columns(rows),
    '',
    'Change one with: cihub pool set <KEY> <VALUE>   (true/false, a number, or null where the range allows it)',
    ...(locked.length > 0
      ? [
          `An environment variable overrides ${locked.map((e) => e.key).join(', ')}: a value set here is stored but takes effect only once the variable is removed and the Hub restarted.`,
        ]
      : []),
    ...inert,
    '',
  ].join('\n');
}

/**
 * The words for a change: the new value, any env lock over it, and every setting the change left
 * doing nothing, whether the changed one or one it governs (`entries` is the catalogue after it).
 */
export function renderSettingChanged(entry: SettingEntry, before: unknown, entries: readonly SettingEntry[]): string {
  const lines = [`${entry.key} is now ${shown(entry.value)} (was ${shown(before)}; default ${shown(entry.default)}).`];
  if (entry.lockedBy !== null)
    lines.push(`${entry.lockedBy} in the Hub's environment still forces ${shown(entry.lockedValue)} until it is removed and the Hub restarted.`);
  for (const other of entries) {
    const sentence = other.key === entry.key || other.inert?.because === entry.key ? inertSentence(other) : null;
    if (sentence !== null) lines.push(sentence);
  }
  return `${lines.join('\n')}\n`;
}
