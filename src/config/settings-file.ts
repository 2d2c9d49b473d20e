/**
 * settings.json: the operator settings, read once at start and rewritten whole on each
 * change. Writes go through util/atomic-write, so a crash or power cut mid-write leaves the
 * previous settings, never half of them.
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { HubError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
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
} from './settings-schema.js';

export const SETTINGS_FILE_NAME = 'settings.json';

export class SettingsFile {
  readonly path: string;
  #current: PoolSettings;
  readonly #listeners: Array<(settings: PoolSettings) => void> = [];

  /** Opens (or creates) settings.json in dataDir. `ignored` lists keys that failed their rule. */
  constructor(dataDir: string, onIgnored: (keys: string[]) => void = () => {}) {
    this.path = join(dataDir, SETTINGS_FILE_NAME);
    let doc: unknown = undefined;
    try {
      doc = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        // Keep the operator's file rather than overwrite it: it moves aside and defaults apply.
        const aside = `${this.path}.invalid-${Date.now()}`;
        renameSync(this.path, aside);
        onIgnored([`(settings.json was not valid JSON; kept as ${aside}, defaults used)`]);
      }
    }
    const { settings, ignored } = settingsFromFile(doc);
    if (ignored.length > 0) onIgnored(ignored);
    this.#current = settings;
    if (doc === undefined) this.#write(settings);
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

  /** Throws HUB_ERR_STORE_UNAVAILABLE when the disk refuses the write; the settings in force stay as they were. */
  #write(settings: PoolSettings): void {
    try {
      writeFileAtomic(this.path, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
    } catch (err) {
      throw translateFileWriteError(err, 'settings.json');
    }
  }
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
