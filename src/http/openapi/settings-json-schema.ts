/**
 * The settings as JSON Schema, generated from the rules the Hub validates them with
 * (config/settings-schema.ts), so the OpenAPI document's PATCH body and GET answer cannot
 * disagree with what the Hub accepts.
 */
import { DEFAULT_SETTINGS, NOT_PATCHABLE, SETTING_RULES, type PoolSettings } from '../../config/settings-schema.js';

type JsonSchema = Record<string, unknown>;

const PIN_SCHEMA: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['scope', 'model', 'target'],
    properties: { scope: { enum: ['model', 'default'] }, model: { type: ['string', 'null'] }, target: { type: 'string' } },
  },
};

function ruleSchema(key: keyof PoolSettings): JsonSchema {
  const rule = SETTING_RULES[key];
  const fallback = { default: DEFAULT_SETTINGS[key] };
  switch (rule.kind) {
    case 'boolean':
      return { type: 'boolean', ...fallback };
    case 'pins':
      return { ...PIN_SCHEMA, ...fallback };
    case 'number':
      return { type: 'number', minimum: rule.min, maximum: rule.max, ...fallback };
    case 'integer':
      return { type: rule.nullable ? ['integer', 'null'] : 'integer', minimum: rule.min, maximum: rule.max, ...fallback };
  }
}

const KEYS = Object.keys(SETTING_RULES) as (keyof PoolSettings)[];

/** GET /settings: every setting. */
export function settingsSchema(): JsonSchema {
  return { type: 'object', required: KEYS, properties: Object.fromEntries(KEYS.map((k) => [k, ruleSchema(k)])) };
}

/** PATCH /settings: any of the settings PATCH may write, nothing else. */
export function settingsPatchSchema(): JsonSchema {
  const keys = KEYS.filter((k) => !NOT_PATCHABLE.has(k));
  return { type: 'object', minProperties: 1, additionalProperties: false, properties: Object.fromEntries(keys.map((k) => [k, ruleSchema(k)])) };
}
