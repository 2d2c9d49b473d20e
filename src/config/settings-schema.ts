/**
 * The operator settings (spec: "Operator settings"): every key, its default and its range,
 * named once here. settings.json holds them; GET/PATCH /api/inference/pool/settings reads
 * and changes them with no restart.
 */
import { echoName, echoValue } from '../util/echo.js';

export interface RoutingPin {
  /** 'model' pins one exact model id; 'default' applies to every model without its own pin. */
  readonly scope: 'model' | 'default';
  /** The exact model id for scope 'model', compared verbatim; null for the default pin. */
  readonly model: string | null;
  /** 'local' or a peer's MagicDNS name. */
  readonly target: string;
}

export interface PoolSettings {
  readonly poolEnabled: boolean;
  readonly poolOutboundEnabled: boolean;
  readonly poolInboundEnabled: boolean;
  /** Queued-request head start the local node gets over a peer (0-20). */
  readonly poolLocalAffinity: number;
  /** Seconds between peer capability probes (10-300); a snapshot is trusted for three polls. */
  readonly poolHealthPollSeconds: number;
  /** Written through /pins, never through PATCH. Empty: the ranker alone decides. */
  readonly poolPins: readonly RoutingPin[];
  readonly poolRequireSignedPeers: boolean;
  readonly poolShareContainerStats: boolean;
  /** Weight of the 0-3 GPU-pressure band; 0 keeps pressure out of the comparator entirely. */
  readonly poolPressureWeight: number;
  /** Largest estimated prompt this node serves while another node can take it; null = no ceiling. */
  readonly poolMaxPromptTokens: number | null;
  /** How long a local engine's health answer is reused for placement; 0 = probe live on every request. */
  readonly poolProbeSnapshotTtlMs: number;
  /** Queue depth up to which a session's last engine is preferred; 0 = prefix affinity off. */
  readonly poolPrefixAffinityMaxInFlight: number;
  /** Past that limit, how much deeper than the least-loaded other candidate's queue the session's engine may be and still be preferred; widens only a limit that is on. */
  readonly poolPrefixAffinityMargin: number;
  /** 1: an Ollama candidate whose stated slots are full goes behind one with a free slot. */
  readonly poolSlotAwareness: number;
  /**
   * This node's context cap: the window its engine runs (set it to OLLAMA_CONTEXT_LENGTH), advertised
   * to peers as maxNumCtx. null (the default) is no cap: the node reads as taking any window.
   */
  readonly inferenceMaxNumCtx: number | null;
  /** Requests this node's Ollama runs at once (OLLAMA_NUM_PARALLEL), as the operator states it; null = not stated. */
  readonly inferenceOllamaSlots: number | null;
  /** Announce this Hub over mDNS on the LAN and list Hubs heard there (unverified) in discovery; off by default. */
  readonly poolLanDiscovery: boolean;
}

/**
 * A context cap's range. 1024 is the ceiling's floor too: a window smaller than that holds no agent
 * turn. 10,000,000 is the largest window a peer may advertise (peers/capabilities.ts, MAX_NUM_CTX).
 */
export const MIN_CONTEXT_CAP = 1024;
export const MAX_CONTEXT_CAP = 10_000_000;

export type Rule =
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly nullable?: true }
  | { readonly kind: 'number'; readonly min: number; readonly max: number }
  | { readonly kind: 'pins' };

export const SETTING_RULES: { readonly [K in keyof PoolSettings]: Rule } = {
  poolEnabled: { kind: 'boolean' },
  poolOutboundEnabled: { kind: 'boolean' },
  poolInboundEnabled: { kind: 'boolean' },
  poolLocalAffinity: { kind: 'integer', min: 0, max: 20 },
  poolHealthPollSeconds: { kind: 'integer', min: 10, max: 300 },
  poolPins: { kind: 'pins' },
  poolRequireSignedPeers: { kind: 'boolean' },
  poolShareContainerStats: { kind: 'boolean' },
  poolPressureWeight: { kind: 'number', min: 0, max: 3 },
  poolMaxPromptTokens: { kind: 'integer', min: 1024, max: 1_048_576, nullable: true },
  poolProbeSnapshotTtlMs: { kind: 'integer', min: 0, max: 300_000 },
  poolPrefixAffinityMaxInFlight: { kind: 'integer', min: 0, max: 20 },
  poolPrefixAffinityMargin: { kind: 'integer', min: 0, max: 20 },
  poolSlotAwareness: { kind: 'integer', min: 0, max: 1 },
  inferenceMaxNumCtx: { kind: 'integer', min: MIN_CONTEXT_CAP, max: MAX_CONTEXT_CAP, nullable: true },
  inferenceOllamaSlots: { kind: 'integer', min: 1, max: 256, nullable: true },
  poolLanDiscovery: { kind: 'boolean' },
};

export const DEFAULT_SETTINGS: PoolSettings = Object.freeze({
  poolEnabled: true,
  poolOutboundEnabled: true,
  poolInboundEnabled: true,
  poolLocalAffinity: 1,
  poolHealthPollSeconds: 30,
  poolPins: Object.freeze([]),
  poolRequireSignedPeers: false,
  poolShareContainerStats: true,
  poolPressureWeight: 0,
  poolMaxPromptTokens: null,
  poolProbeSnapshotTtlMs: 0,
  poolPrefixAffinityMaxInFlight: 0,
  poolPrefixAffinityMargin: 0,
  poolSlotAwareness: 0,
  inferenceMaxNumCtx: null,
  inferenceOllamaSlots: null,
  poolLanDiscovery: false,
});

/** Keys PATCH may not write: pins have their own route. */
export const NOT_PATCHABLE: ReadonlySet<string> = new Set(['poolPins']);

export type SettingsPatch = Partial<Omit<PoolSettings, 'poolPins'>>;

/** One refused field: what it was and what it must be. */
export interface SettingProblem {
  readonly field: string;
  readonly message: string;
}

export function describeRule(rule: Rule): string {
  switch (rule.kind) {
    case 'boolean':
      return 'true or false';
    case 'integer':
      return `a whole number from ${rule.min} to ${rule.max}${rule.nullable ? ', or null' : ''}`;
    case 'number':
      return `a number from ${rule.min} to ${rule.max}`;
    case 'pins':
      return 'a list of pins (written through /api/inference/pool/pins)';
  }
}

/** Whether one value satisfies its rule. Pure; used for PATCH and for reading settings.json. */
export function valueFits(rule: Rule, value: unknown): boolean {
  switch (rule.kind) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      if (value === null) return rule.nullable === true;
      return typeof value === 'number' && Number.isInteger(value) && value >= rule.min && value <= rule.max;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= rule.min && value <= rule.max;
    case 'pins':
      return Array.isArray(value) && value.every(isPin);
  }
}

export function isPin(value: unknown): value is RoutingPin {
  if (typeof value !== 'object' || value === null) return false;
  const pin = value as Record<string, unknown>;
  if (typeof pin.target !== 'string' || pin.target.length === 0) return false;
  if (pin.scope === 'default') return pin.model === null || pin.model === undefined;
  return pin.scope === 'model' && typeof pin.model === 'string' && pin.model.length > 0;
}

/**
 * The rule for a field a document names; undefined when it is not a setting. Own keys only: a
 * field named `constructor` or `toString` found Object.prototype's member and was refused as
 * "must be undefined" instead of as no setting.
 */
function ruleOf(field: string): Rule | undefined {
  return Object.hasOwn(SETTING_RULES, field) ? (SETTING_RULES as Record<string, Rule>)[field] : undefined;
}

/**
 * Validates a PATCH body as a whole: every problem is reported, and a body with any
 * problem changes nothing.
 */
export function validatePatch(body: unknown): { patch: SettingsPatch; problems: SettingProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { patch: {}, problems: [{ field: '(body)', message: 'the body must be a JSON object of settings' }] };
  }
  const problems: SettingProblem[] = [];
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    const rule = ruleOf(field);
    if (rule === undefined) {
      const name = echoName(field);
      problems.push({ field: name, message: `${name} is not a setting (known: ${Object.keys(SETTING_RULES).join(', ')})` });
    } else if (NOT_PATCHABLE.has(field)) {
      problems.push({ field, message: `${field} is written through POST/DELETE /api/inference/pool/pins, not PATCH` });
    } else if (!valueFits(rule, value)) {
      problems.push({ field, message: `${field} must be ${describeRule(rule)}; got ${echoValue(value)}` });
    } else {
      patch[field] = value;
    }
  }
  if (problems.length === 0 && Object.keys(patch).length === 0) {
    problems.push({ field: '(body)', message: 'the body names no setting to change' });
  }
  // All or nothing: a body with any problem yields no patch, so no caller can apply half of it.
  return { patch: problems.length > 0 ? {} : (patch as SettingsPatch), problems };
}

/** One value of settings.json the Hub did not use: a key (`poolLocalAffinity`) or one pin (`poolPins[2]`), with why. */
export interface IgnoredSetting {
  readonly key: string;
  /** In the words a refused PATCH uses. */
  readonly problem: string;
}

/**
 * A key of settings.json this build has no rule for, with its value as read. It may be a setting
 * a newer cihub wrote before this one replaced it (a downgrade), or a typo: this build cannot tell
 * which, so it uses none of them and writes each back as it found it.
 */
export interface UnknownSetting {
  readonly key: string;
  readonly value: unknown;
}

/** What settings.json holds, as this build reads it. */
export interface SettingsFromFile {
  readonly settings: PoolSettings;
  /** Known keys whose value fails its rule, and bad pins: each takes its default (or is left out). */
  readonly ignored: IgnoredSetting[];
  /** Keys with no rule here, in the file's order: not used, and kept in the file on every write. */
  readonly unknown: readonly UnknownSetting[];
}

/**
 * Reads a settings.json document leniently: a key that fails its rule falls back to its
 * default (and is reported), so a hand-edited file never stops the Hub from starting. Pins are
 * read one by one: a bad pin is left out and reported by its place in the list, and the others
 * stand. Refused as a list, one typo dropped every pin, and the next change of any setting wrote
 * the empty list back over the operator's file (audit, 2026-12-07). A key with no rule is handed
 * back apart, to be kept: dropped with the rest, a downgrade lost every setting the newer build
 * had written at the first `cihub pool set` (upgrade audit, 2026-12-07).
 */
export function settingsFromFile(doc: unknown): SettingsFromFile {
  const ignored: IgnoredSetting[] = [];
  const unknown: UnknownSetting[] = [];
  const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) {
    for (const [field, value] of Object.entries(doc)) {
      const rule = ruleOf(field);
      if (rule === undefined) unknown.push(deepFreeze({ key: field, value }));
      else if (rule.kind === 'pins' && Array.isArray(value)) merged[field] = pinsFromFile(value, ignored);
      else if (!valueFits(rule, value)) ignored.push({ key: field, problem: `${field} must be ${describeRule(rule)}; got ${echoValue(value)}` });
      else merged[field] = value;
    }
  }
  return { settings: deepFreeze(merged as unknown as PoolSettings), ignored, unknown: Object.freeze(unknown) };
}

function pinsFromFile(list: readonly unknown[], ignored: IgnoredSetting[]): RoutingPin[] {
  const pins: RoutingPin[] = [];
  list.forEach((pin, i) => {
    if (isPin(pin)) pins.push(pin);
    else ignored.push({ key: `poolPins[${i}]`, problem: `poolPins[${i}] must be ${PIN_SHAPE}; got ${echoValue(pin)}` });
  });
  return pins;
}

/** A pin as settings.json holds it, in words. */
const PIN_SHAPE = '{ "scope": "model", "model": <a model id>, "target": <"local" or a peer name> } or { "scope": "default", "target": ... }';

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
