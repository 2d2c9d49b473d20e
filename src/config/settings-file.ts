/**
 * settings.json: the operator settings, read once at start and rewritten whole on each
 * change. Writes go through util/atomic-write, so a crash or power cut mid-write leaves the
 * previous settings, never half of them.
 *
 * Keys this build has no setting for are not used, but every write puts them back as they were
 * read: they may be a newer cihub's settings, which a downgrade must not erase. A write keeps the
 * file's key order, so an operator's hand-arranged file (or a newer cihub's) is not reshuffled.
 *
 * A file that is there but not a JSON object of settings (bad JSON, or JSON such as [1,2], null
 * or 42) is moved aside and defaults apply, with a warning naming where it went. A file that
 * could not be read at all (EACCES, EISDIR) is left exactly where it is: the warning names the
 * error, defaults apply, and every change is refused until it is readable and the Hub restarted,
 * since the atomic write would otherwise rename a new file over the operator's. A start that
 * must move the file aside or write the defaults, on a data dir that refuses it (read-only),
 * stops there with the sentence any unusable data dir gets (config/data-dir-unusable).
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { HubError } from '../errors.js';
import { unsyncedWriteText, writeFileAtomic, type UnsyncedWrite } from '../util/atomic-write.js';
import { dataDirUnusable } from './data-dir-unusable.js';
import { echoName } from '../util/echo.js';
import { translateFileWriteError } from '../store/store-errors.js';
import {
  deepFreeze,
  describeRule,
  DEFAULT_SETTINGS,
  SETTING_RULES,
  settingsFromFile,
  validatePatch,
  type PoolSettings,
  type RoutingPin,
  type UnknownSetting,
} from './settings-schema.js';

export const SETTINGS_FILE_NAME = 'settings.json';

/** What reading settings.json found: no file, a file it could not read, or its text. */
type FileRead = { readonly kind: 'absent' } | { readonly kind: 'unreadable'; readonly error: string } | { readonly kind: 'text'; readonly text: string };

function readSettingsText(path: string): FileRead {
  try {
    return { kind: 'text', text: readFileSync(path, 'utf8') };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'unreadable', error: e.code ?? e.message };
  }
}

/** The document in a file's text, or why it is not a JSON object of settings. */
function parseSettingsText(text: string): { readonly doc: object } | { readonly fault: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { fault: 'was not valid JSON' };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { fault: `held ${Array.isArray(doc) ? 'a list' : JSON.stringify(doc)}, not a JSON object of settings` };
  return { doc };
}

/** What was wrong with settings.json when it was opened or written: the Hub logs one warning for each. */
export type SettingsFileProblem =
  /**
   * Known keys whose value failed its rule (out of range, wrong type), defaults used for those
   * keys, and pins left out; each with why. Reported again with `rewritten` once the first change
   * has written the file without them: from then on they are gone from disk, not merely unused.
   */
  | { readonly kind: 'ignored-keys'; readonly keys: readonly string[]; readonly problems: readonly string[]; readonly rewritten: boolean }
  /** Keys this build has no setting for (as a refusal names them): unused, and kept in the file through every write. */
  | { readonly kind: 'unknown-keys'; readonly keys: readonly string[] }
  /** The file could not be read at all: left as it is, defaults used, changes refused. */
  | { readonly kind: 'unreadable'; readonly path: string; readonly error: string }
  /** Not a JSON object of settings: moved aside to `keptAs`, defaults used. */
  | { readonly kind: 'not-settings'; readonly path: string; readonly fault: string; readonly keptAs: string }
  /** Written and in force, but the directory sync after the rename failed (util/atomic-write). */
  | { readonly kind: 'unsynced'; readonly path: string; readonly error: string };

/** The warning line for a problem (the Hub's log is an operator's surface too). */
export function settingsProblemText(p: SettingsFileProblem): string {
  switch (p.kind) {
    case 'ignored-keys':
      if (p.rewritten)
        return `settings.json had values the Hub could not use, and a change of a setting has since rewritten the file without them: each of those keys holds its default and a bad pin is gone (set them again to use them): ${p.problems.join('; ')}`;
      return `settings.json had values the Hub could not use, so each takes its default and a bad pin is left out (fix them in the file and restart: the next change of a setting rewrites the file without them): ${p.problems.join('; ')}`;
    case 'unknown-keys':
      return `settings.json has ${p.keys.length === 1 ? 'a key' : 'keys'} this cihub has no setting for, left unused: ${p.keys.join(', ')}. Each may be a newer cihub's setting, kept in the file as it is when a change rewrites the file, or a typo to remove from the file`;
    case 'unreadable':
      return `${p.path} could not be read (${p.error}); left as it is, defaults used, and changes are refused until it is readable and the Hub restarted`;
    case 'not-settings':
      return `${p.path} ${p.fault}; kept as ${p.keptAs}, defaults used`;
    case 'unsynced':
      return unsyncedWriteText(p);
  }
}

export class SettingsFile {
  readonly path: string;
  #current: PoolSettings;
  readonly #listeners: Array<(settings: PoolSettings) => void> = [];
  /** Set when the file could not be read at start: the error, and every write is refused. */
  readonly #unreadable: string | null = null;
  readonly #onProblem: (problem: SettingsFileProblem) => void;
  /** Keys ignored at start that are still in the file; null once a write has left them out (or there were none). */
  #ignoredOnDisk: Extract<SettingsFileProblem, { kind: 'ignored-keys' }> | null = null;
  /** Keys the file held that this build has no setting for, written back as they were read on every change. */
  readonly #unknown: readonly UnknownSetting[];
  /** Every key the file held, in its order: where each write puts them back. */
  readonly #fileOrder: readonly string[];

  /** Opens (or creates) settings.json in dataDir; `onProblem` hears what was wrong with it, then or on a later write. */
  constructor(dataDir: string, onProblem: (problem: SettingsFileProblem) => void = () => {}) {
    this.path = join(dataDir, SETTINGS_FILE_NAME);
    this.#onProblem = onProblem;
    const read = readSettingsText(this.path);
    let doc: object | undefined;
    if (read.kind === 'unreadable') {
      this.#unreadable = read.error;
      onProblem({ kind: 'unreadable', path: this.path, error: read.error });
    } else if (read.kind === 'text') {
      const parsed = parseSettingsText(read.text);
      if ('doc' in parsed) doc = parsed.doc;
      else {
        // Keep the operator's file rather than overwrite it: it moves aside and defaults apply.
        const aside = `${this.path}.invalid-${Date.now()}`;
        try {
          renameSync(this.path, aside);
        } catch (err) {
          throw dataDirUnusable(dataDir, this.path, err);
        }
        onProblem({ kind: 'not-settings', path: this.path, fault: parsed.fault, keptAs: aside });
      }
    }
    const { settings, ignored, unknown } = settingsFromFile(doc);
    if (ignored.length > 0) {
      this.#ignoredOnDisk = { kind: 'ignored-keys', keys: ignored.map((i) => i.key), problems: ignored.map((i) => i.problem), rewritten: false };
      onProblem(this.#ignoredOnDisk);
    }
    if (unknown.length > 0) onProblem({ kind: 'unknown-keys', keys: unknown.map((u) => echoName(u.key)) });
    this.#unknown = unknown;
    this.#fileOrder = Object.freeze(doc === undefined ? [] : Object.keys(doc));
    this.#current = settings;
    if (doc === undefined && this.#unreadable === null) {
      // At start a refused write is the data dir's fault, not a moment's: there is no Hub yet to retry with.
      try {
        this.#reportUnsynced(writeSettingsFile(this.path, settingsDocument(settings, unknown, this.#fileOrder)));
      } catch (err) {
        throw dataDirUnusable(dataDir, this.path, err);
      }
    }
  }

  /** The settings in force; a frozen object, replaced (never mutated) on change. */
  get(): PoolSettings {
    return this.#current;
  }

  /** Calls `listener` after every change is written (it must not throw). */
  onChange(listener: (settings: PoolSettings) => void): void {
    this.#listeners.push(listener);
  }

  /** Applies a PATCH body: all of it or, on any problem, none of it. */
  patch(body: unknown): PoolSettings {
    const { patch, problems } = validatePatch(body);
    if (problems.length > 0) {
      throw new HubError('HUB_ERR_SETTINGS_INVALID', problems.map((p) => p.message).join('; '), {
        details: { fields: problems },
      });
    }
    return this.#replace({ ...this.#current, ...patch });
  }

  /** Upserts a pin keyed by (scope, model). */
  upsertPin(pin: RoutingPin): PoolSettings {
    const pins = this.#current.poolPins.filter((p) => !samePinKey(p, pin.scope, pin.model));
    return this.#replace({ ...this.#current, poolPins: [...pins, pin] });
  }

  /** Removes the pin keyed by (scope, model); false when there was none. */
  removePin(scope: RoutingPin['scope'], model: string | null): boolean {
    const pins = this.#current.poolPins.filter((p) => !samePinKey(p, scope, model));
    if (pins.length === this.#current.poolPins.length) return false;
    this.#replace({ ...this.#current, poolPins: pins });
    return true;
  }

  #replace(next: PoolSettings): PoolSettings {
    const frozen = deepFreeze(structuredClone(next));
    this.#write(frozen);
    this.#current = frozen;
    for (const listener of this.#listeners) listener(frozen);
    return frozen;
  }

  /**
   * Throws HUB_ERR_STORE_UNAVAILABLE when the disk refuses the write; the settings in force stay
   * as they were. A write that replaced the file but could not sync its directory is done (the
   * file on disk is the new one) and reported as a problem.
   */
  #write(settings: PoolSettings): void {
    if (this.#unreadable !== null)
      throw new HubError(
        'HUB_ERR_STORE_UNAVAILABLE',
        `${this.path} could not be read when this Hub started (${this.#unreadable}), so it is not written over; make it readable and restart the Hub`,
        { details: { errno: this.#unreadable } },
      );
    let unsynced;
    try {
      unsynced = writeSettingsFile(this.path, settingsDocument(settings, this.#unknown, this.#fileOrder));
    } catch (err) {
      throw translateFileWriteError(err, 'settings.json');
    }
    this.#reportUnsynced(unsynced);
    if (this.#ignoredOnDisk !== null) {
      this.#onProblem({ ...this.#ignoredOnDisk, rewritten: true });
      this.#ignoredOnDisk = null;
    }
  }

  #reportUnsynced(unsynced: UnsyncedWrite | null): void {
    if (unsynced !== null) this.#onProblem({ kind: 'unsynced', ...unsynced });
  }
}

/**
 * The document a write puts in settings.json: every key the file had, in the file's order (a
 * setting with the value in force, a key this build has no setting for with the value it was
 * read with), then the settings the file did not have, in the catalogue's order. Object.fromEntries
 * defines each key, so one named `__proto__` stays a key of the document; assigned, it would set
 * the prototype and vanish from the file. (A key that is a whole number, never a setting's name,
 * comes first whatever its place: JavaScript orders such keys so in every object.)
 *
 * A kept value is written again from what JSON.parse made of it, not copied as text: a value a
 * cihub wrote (JSON.stringify, the newer one's too) comes out as the same text, and one typed by
 * hand keeps its meaning but may change its spelling (1.50 is written 1.5, "\u00e9" as é).
 * Keeping the text would take a JSON reader of our own that records where each value sits in the
 * file, more code to get wrong than a spelling is worth: JSON.parse, a newer cihub's included,
 * reads the same value either way.
 */
function settingsDocument(settings: PoolSettings, unknown: readonly UnknownSetting[], fileOrder: readonly string[]): Record<string, unknown> {
  const inForce = new Map<string, unknown>(Object.entries(settings));
  const kept = new Map(unknown.map((u) => [u.key, u.value] as const));
  const inFile = fileOrder.map((key) => [key, inForce.has(key) ? inForce.get(key) : kept.get(key)] as const);
  const added = [...inForce].filter(([key]) => !fileOrder.includes(key));
  return Object.fromEntries([...inFile, ...added]);
}

function writeSettingsFile(path: string, doc: Record<string, unknown>): UnsyncedWrite | null {
  return writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}

/** Whether a stored pin has this (scope, model) key; a hand-written default pin may omit model. */
function samePinKey(pin: RoutingPin, scope: RoutingPin['scope'], model: string | null): boolean {
  return pin.scope === scope && (pin.model ?? null) === (model ?? null);
}

/** Every setting with its default and range, for `GET /settings` consumers and docs. */
export function settingsCatalogue(): Array<{ key: string; default: unknown; range: string }> {
  return Object.entries(SETTING_RULES).map(([key, rule]) => ({
    key,
    default: (DEFAULT_SETTINGS as unknown as Record<string, unknown>)[key],
    range: describeRule(rule),
  }));
}
