/**
 * Reads a model sent to the control routes (`POST /__sim/models`): a name, or the object a
 * `models` entry takes. Unknown keys are refused so a misspelt option fails the test that sent it
 * instead of quietly taking the default.
 */
import { isRecord } from './tokens.js';
import type { SimModelOptions } from './types.js';

type NumberRule = readonly [key: keyof SimModelOptions, valid: (n: number) => boolean, what: string];
const positive = (n: number) => n > 0;
const nonNegative = (n: number) => n >= 0;
const whole = (n: number) => Number.isInteger(n) && n >= 1;
const NUMBERS: readonly NumberRule[] = [
  ['prefillTps', positive, 'a positive number'],
  ['decodeTps', positive, 'a positive number'],
  ['prefillSlowdownPerKTok', nonNegative, 'a number from 0'],
  ['loadMs', nonNegative, 'a number from 0'],
  ['vramFraction', nonNegative, 'a number from 0'],
  ['slots', whole, 'a whole number from 1'],
  ['contextLength', whole, 'a whole number from 1'],
  ['answerTokens', whole, 'a whole number from 1'],
];
const STRINGS = ['parameterSize', 'family'] as const;
const KNOWN_KEYS: ReadonlySet<string> = new Set(['name', 'capabilities', ...NUMBERS.map(([key]) => key), ...STRINGS]);

export function parseModelOptions(value: unknown): SimModelOptions {
  if (typeof value === 'string') return { name: nonEmptyName(value) };
  if (!isRecord(value)) throw new Error('a model must be a name or a JSON object with a name');
  const unknown = Object.keys(value).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0) throw new Error(`unknown model option ${unknown.join(', ')}`);
  const model: Record<string, unknown> = { name: nonEmptyName(value['name']) };
  const put = (key: string, v: unknown) => {
    if (v !== undefined) model[key] = v;
  };
  for (const [key, valid, what] of NUMBERS) put(key, optionalNumber(value, key, valid, what));
  for (const key of STRINGS) {
    if (value[key] !== undefined && typeof value[key] !== 'string') throw new Error(`${key} must be a string`);
    put(key, value[key]);
  }
  const capabilities = value['capabilities'];
  if (capabilities !== undefined && !(Array.isArray(capabilities) && capabilities.every((c) => typeof c === 'string')))
    throw new Error('capabilities must be an array of strings');
  put('capabilities', capabilities);
  // Every key was checked against SimModelOptions' own above.
  return model as unknown as SimModelOptions;
}

function nonEmptyName(name: unknown): string {
  if (typeof name !== 'string' || name === '') throw new Error('name must be a non-empty string');
  return name;
}

function optionalNumber(obj: Record<string, unknown>, key: string, valid: (n: number) => boolean, what: string): number | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || !valid(v)) throw new Error(`${key} must be ${what}`);
  return v;
}
