/**
 * Reading Ollama native request fields: the runner options the simulator acts on and keep_alive.
 */
import { isRecord } from './tokens.js';

export interface NativeOptions {
  /** options.num_ctx, when the request names a window. */
  numCtx: number | undefined;
  /** options.num_predict; negative means no limit in Ollama (-1 infinite, -2 fill the context). */
  numPredict: number | undefined;
}

export function nativeOptions(body: Record<string, unknown>): NativeOptions {
  const options = isRecord(body['options']) ? body['options'] : {};
  return { numCtx: positiveInt(options['num_ctx']), numPredict: int(options['num_predict']) };
}

function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

function positiveInt(v: unknown): number | undefined {
  const n = int(v);
  return n !== undefined && n > 0 ? n : undefined;
}

const DURATION_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * keep_alive as simulated ms: a JSON number is seconds, a string is a Go duration ("5m", "1h30m",
 * "0"); any negative value keeps the model loaded for good (returned as -1). Undefined when absent
 * or unreadable, so the engine default applies.
 */
export function keepAliveMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 0 ? -1 : value * 1000;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    return seconds < 0 ? -1 : seconds * 1000;
  }
  const match = /^(-)?((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)$/.exec(text);
  if (match?.[2] === undefined) return undefined;
  if (match[1] === '-') return -1;
  let total = 0;
  for (const part of match[2].matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (DURATION_UNITS_MS[part[2] ?? 's'] ?? 0);
  }
  return total;
}
