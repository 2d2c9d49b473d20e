/**
 * This Hub's own tailnet name and suffix. The suffix is what inbound pairing compares a
 * claimed peer name against, and the name is what a Hub refuses to pair with (itself).
 * HUB_NODE_FQDN / HUB_TAILNET_SUFFIX stand in for the daemon in development and tests;
 * otherwise the answer comes from `tailscale status --json`.
 */
import { execFile } from 'node:child_process';
import type { Clock } from '../util/clock.js';
import { normalizePeerName, normalizeTailnetSuffix } from './peer-name.js';

export interface TailnetSelf {
  nodeFqdn: string | null;
  tailnetSuffix: string | null;
  tailscaleConnected: boolean;
  source: 'env' | 'tailscale' | 'none';
}

const NOTHING: TailnetSelf = Object.freeze({ nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none' });

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function nameOrNull(raw: string | null): string | null {
  if (raw === null) return null;
  const result = normalizePeerName(raw);
  return result.ok ? result.name : null;
}

function suffixOrNull(raw: string | null): string | null {
  return raw === null ? null : normalizeTailnetSuffix(raw);
}

/**
 * Reads the fields this Hub needs out of `tailscale status --json`. Anything missing or of the
 * wrong type becomes null rather than an error: older daemons omit CurrentTailnet, and a
 * logged-out daemon reports an empty DNSName. Name and suffix are kept even when the backend
 * is not Running, so a Hub whose daemon is merely stopped still checks peer names against
 * its tailnet instead of accepting everyone.
 */
export function parseTailscaleStatus(json: unknown): TailnetSelf {
  const status = record(json);
  if (status === null) return NOTHING;
  const current = record(status.CurrentTailnet);
  // MagicDNSSuffix at the top level is the older, deprecated spelling of the same value.
  const suffix = suffixOrNull(text(current?.MagicDNSSuffix)) ?? suffixOrNull(text(status.MagicDNSSuffix));
  return {
    nodeFqdn: nameOrNull(text(record(status.Self)?.DNSName)),
    tailnetSuffix: suffix,
    tailscaleConnected: status.BackendState === 'Running',
    source: 'tailscale',
  };
}

export interface ReadTailnetSelfOptions {
  envFqdn: string | null;
  envSuffix: string | null;
  /** Raw stdout of `tailscale status --json`, or null when it could not be run. */
  runStatus: () => Promise<string | null>;
}

/**
 * Env first, then the daemon. An env value that does not normalise is ignored, as config/env.ts
 * ignores other invalid values. When only HUB_NODE_FQDN is given the suffix is everything after
 * its first label, which is how MagicDNS builds names (host.<suffix>). The env stand-in says
 * nothing about the daemon, so tailscaleConnected stays false on that path.
 */
export async function readTailnetSelf(opts: ReadTailnetSelfOptions): Promise<TailnetSelf> {
  const envFqdn = nameOrNull(opts.envFqdn);
  const envSuffix = suffixOrNull(opts.envSuffix);
  if (envFqdn !== null || envSuffix !== null) {
    const derived = envFqdn === null ? null : envFqdn.slice(envFqdn.indexOf('.') + 1);
    return { nodeFqdn: envFqdn, tailnetSuffix: envSuffix ?? derived, tailscaleConnected: false, source: 'env' };
  }
  let output: string | null;
  try {
    output = await opts.runStatus();
  } catch {
    output = null;
  }
  if (output === null) return NOTHING;
  try {
    return parseTailscaleStatus(JSON.parse(output));
  } catch {
    return NOTHING;
  }
}

/**
 * Runs `tailscale status --json` without a shell. Any failure (binary absent, non-zero exit,
 * timeout, oversized output) resolves null: a Hub without Tailscale is a supported setup.
 */
export function tailscaleStatusRunner(timeoutMs = 5_000, file = 'tailscale'): () => Promise<string | null> {
  return () =>
    new Promise((resolve) => {
      execFile(file, ['status', '--json'], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (error, stdout) => {
        resolve(error ? null : stdout);
      });
    });
}

/** How long a status reading is reused: the pool status route is polled and must stay cheap. */
export const TAILNET_SELF_TTL_MS = 30_000;

/**
 * readTailnetSelf behind a 30 s cache. Concurrent callers share one in-flight read, so a burst
 * of status polls spawns one tailscale process, not one each.
 */
export class TailnetSelfCache {
  readonly #clock: Clock;
  readonly #opts: ReadTailnetSelfOptions;
  readonly #ttlMs: number;
  #entry: { readAtMs: number; value: Promise<TailnetSelf> } | null = null;

  constructor(opts: ReadTailnetSelfOptions & { clock: Clock; ttlMs?: number }) {
    this.#clock = opts.clock;
    this.#opts = { envFqdn: opts.envFqdn, envSuffix: opts.envSuffix, runStatus: opts.runStatus };
    this.#ttlMs = opts.ttlMs ?? TAILNET_SELF_TTL_MS;
  }

  get(): Promise<TailnetSelf> {
    const now = this.#clock.nowMs();
    if (this.#entry !== null && now - this.#entry.readAtMs < this.#ttlMs) return this.#entry.value;
    const value = readTailnetSelf(this.#opts);
    this.#entry = { readAtMs: now, value };
    return value;
  }

  /** Forget the cached reading, so the next get() asks again. */
  invalidate(): void {
    this.#entry = null;
  }
}
