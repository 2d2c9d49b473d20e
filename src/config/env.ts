/**
 * The Hub's environment, parsed once at start and frozen. Nothing outside config/ reads
 * process.env. Knobs the spec says are read per request (placement switches, tailnet auth)
 * are exposed as accessors over the same environment object rather than copied.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EngineKind } from '../engines/engine-kind.js';
import { parseAllowedHosts, parseAllowedOrigins, parseTrustedProxies } from './edge-trust.js';

/** Default engine addresses: each engine's usual port on this machine. */
export const DEFAULT_ENGINE_URLS: Readonly<Record<Exclude<EngineKind, 'llamacpp'>, string>> = {
  ollama: 'http://127.0.0.1:11434',
  vllm: 'http://127.0.0.1:8000',
  lemonade: 'http://127.0.0.1:13305',
  omlx: 'http://127.0.0.1:8000',
};

export const DEFAULT_API_PORT = 5002;
export const DEFAULT_HOST = '127.0.0.1';
/** First-byte budget floor (spec, Failover): 300 s. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 300_000;
/** Prefill rate the first-byte budget assumes for long prompts (spec, Failover): 50 tok/s. */
export const DEFAULT_MIN_PREFILL_TOKENS_PER_SEC = 50;
/** Routing-log ring (spec, Ring size): 200 rows by default, 200-10,000 by env at start-up. */
export const DEFAULT_ROUTING_LOG_SIZE = 200;
export const MIN_ROUTING_LOG_SIZE = 200;
export const MAX_ROUTING_LOG_SIZE = 10_000;
/** Prompt-ceiling range (spec, Required configuration): whole numbers 1024-1048576. */
export const MIN_PROMPT_CEILING_TOKENS = 1024;
export const MAX_PROMPT_CEILING_TOKENS = 1_048_576;
export const DEFAULT_SLOWER_PLACEMENT_RATIO = 3;
export const DEFAULT_SLOWER_PLACEMENT_FLOOR_MS = 20_000;

/** One local engine the Hub fronts. */
export interface EngineEndpoint {
  /** Stable id for logs and the routing log: the kind, plus an index when a kind repeats. */
  readonly id: string;
  readonly kind: EngineKind;
  /** Base URL without a trailing slash. */
  readonly url: string;
}

export interface HubEnv {
  readonly port: number;
  /** Address to listen on: HUB_HOST, default loopback (Tailscale Serve publishes it to the tailnet). */
  readonly host: string;
  readonly dataDir: string;
  readonly engines: readonly EngineEndpoint[];
  readonly userDisabled: boolean;
  readonly outboundDisabled: boolean;
  readonly inboundDisabled: boolean;
  /** HUB_POOL_MAX_PROMPT_TOKENS when valid; null when unset or ignored as invalid. */
  readonly maxPromptTokens: number | null;
  readonly firstByteTimeoutMs: number;
  readonly minPrefillTokensPerSec: number;
  readonly routingLogSize: number;
  /** HUB_TRUST_PROXY: addresses and CIDR ranges whose X-Forwarded-For names the caller (config/edge-trust.ts). */
  readonly trustedProxies: readonly string[];
  /** HUB_ALLOWED_HOSTS: extra Host names this Hub answers to. */
  readonly allowedHosts: readonly string[];
  /** HUB_ALLOWED_ORIGINS: browser origins that may call this Hub (`*` for any). */
  readonly allowedOrigins: readonly string[];
  readonly logLevel: string;
  /** HUB_NODE_FQDN: this Hub's MagicDNS name, standing in for tailscale status (development, tests). */
  readonly nodeFqdn: string | null;
  /** HUB_TAILNET_SUFFIX: the tailnet's MagicDNS suffix, standing in for tailscale status. */
  readonly tailnetSuffix: string | null;
  /** HUB_POOL_PEER_ORIGINS, raw: `name=origin,...` maps a peer's name to where it is dialled instead of https://<name>. */
  readonly peerOriginsRaw: string | null;
  /** HUB_POOL_IDENTITY_SECRET: seals the identity key instead of <data-dir>/identity.secret. */
  readonly identitySecret: string | null;
  /** TAILSCALE_OAUTH_CLIENT_ID and _SECRET are both set (the Admin API leg of discovery). */
  readonly tailscaleAdminApiConfigured: boolean;
  /** Per-request knobs: read the environment at call time, as the spec asks. */
  readonly knobs: Knobs;
}

export interface Knobs {
  /** HUB_INFERENCE_TAILNET_AUTH=require-key: tailnet callers need an inference key. */
  tailnetRequiresKey(): boolean;
  throughputPlacement(): boolean;
  contentionPlacement(): boolean;
  slowerPlacementRatio(): number;
  slowerPlacementFloorMs(): number;
}

type Env = Readonly<Record<string, string | undefined>>;

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const OFF_WORDS = new Set(['0', 'false', 'off', 'no']);

export function isTrue(value: string | undefined): boolean {
  return value !== undefined && TRUE_WORDS.has(value.trim().toLowerCase());
}

function isOff(value: string | undefined): boolean {
  return value !== undefined && OFF_WORDS.has(value.trim().toLowerCase());
}

/** A whole number within [min, max], or null: invalid values are ignored, never guessed at. */
export function wholeNumberIn(value: string | undefined, min: number, max: number): number | null {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}

function positiveNumber(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** Engine endpoints from OLLAMA_URL, VLLM_URL, LEMONADE_URL, OMLX_URL and LLAMACPP_URL. */
export function enginesFromEnv(env: Env): EngineEndpoint[] {
  const out: EngineEndpoint[] = [];
  const add = (kind: EngineKind, raw: string | undefined, fallback: string | undefined) => {
    // An empty value (or "off") switches an engine off; unset takes the default address.
    const value = raw === undefined ? fallback : raw.trim();
    if (value === undefined || value === '' || isOff(value)) return;
    value.split(',').map((u) => u.trim()).filter(Boolean).forEach((url, i, all) => {
      out.push({ id: all.length > 1 ? `${kind}-${i + 1}` : kind, kind, url: url.replace(/\/+$/, '') });
    });
  };
  add('ollama', env.OLLAMA_URL, DEFAULT_ENGINE_URLS.ollama);
  add('vllm', env.VLLM_URL, DEFAULT_ENGINE_URLS.vllm);
  add('lemonade', env.LEMONADE_URL, DEFAULT_ENGINE_URLS.lemonade);
  add('omlx', env.OMLX_URL, DEFAULT_ENGINE_URLS.omlx);
  add('llamacpp', env.LLAMACPP_URL, undefined);
  return out;
}

export interface EnvOverrides {
  readonly port?: number | undefined;
  readonly host?: string | undefined;
  readonly dataDir?: string | undefined;
}

export function loadEnv(env: Env, overrides: EnvOverrides = {}): HubEnv {
  // Number('') is 0, so a blank value must be caught before it reads as a real zero floor.
  const numberOrNull = (raw: string | undefined) => (raw === undefined || raw.trim() === '' ? null : Number(raw));
  const ratio = () => {
    const n = numberOrNull(env.HUB_POOL_SLOWER_PLACEMENT_RATIO);
    return n !== null && Number.isFinite(n) && n >= 1 ? n : DEFAULT_SLOWER_PLACEMENT_RATIO;
  };
  const floor = () => {
    const n = numberOrNull(env.HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS);
    return n !== null && Number.isFinite(n) && n >= 0 ? n : DEFAULT_SLOWER_PLACEMENT_FLOOR_MS;
  };
  const hubEnv: HubEnv = {
    port: overrides.port ?? wholeNumberIn(env.API_PORT, 0, 65_535) ?? DEFAULT_API_PORT,
    host: overrides.host ?? (env.HUB_HOST?.trim() || DEFAULT_HOST),
    dataDir: overrides.dataDir ?? dataDirFromEnv(env),
    engines: Object.freeze(enginesFromEnv(env)),
    userDisabled: isTrue(env.HUB_POOL_USER_DISABLED),
    outboundDisabled: isTrue(env.HUB_POOL_OUTBOUND_DISABLED),
    inboundDisabled: isTrue(env.HUB_POOL_INBOUND_DISABLED),
    maxPromptTokens: wholeNumberIn(env.HUB_POOL_MAX_PROMPT_TOKENS, MIN_PROMPT_CEILING_TOKENS, MAX_PROMPT_CEILING_TOKENS),
    firstByteTimeoutMs: wholeNumberIn(env.HUB_POOL_FIRST_BYTE_TIMEOUT_MS, 1, Number.MAX_SAFE_INTEGER) ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    minPrefillTokensPerSec: positiveNumber(env.HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC) ?? DEFAULT_MIN_PREFILL_TOKENS_PER_SEC,
    routingLogSize: wholeNumberIn(env.HUB_POOL_ROUTING_LOG_SIZE, MIN_ROUTING_LOG_SIZE, MAX_ROUTING_LOG_SIZE) ?? DEFAULT_ROUTING_LOG_SIZE,
    trustedProxies: parseTrustedProxies(env.HUB_TRUST_PROXY),
    allowedHosts: parseAllowedHosts(env.HUB_ALLOWED_HOSTS),
    allowedOrigins: parseAllowedOrigins(env.HUB_ALLOWED_ORIGINS),
    logLevel: env.HUB_LOG_LEVEL?.trim() || 'info',
    nodeFqdn: env.HUB_NODE_FQDN?.trim() || null,
    tailnetSuffix: env.HUB_TAILNET_SUFFIX?.trim() || null,
    peerOriginsRaw: env.HUB_POOL_PEER_ORIGINS?.trim() || null,
    identitySecret: env.HUB_POOL_IDENTITY_SECRET || null,
    tailscaleAdminApiConfigured: Boolean(env.TAILSCALE_OAUTH_CLIENT_ID?.trim() && env.TAILSCALE_OAUTH_CLIENT_SECRET?.trim()),
    knobs: {
      tailnetRequiresKey: () => env.HUB_INFERENCE_TAILNET_AUTH?.trim().toLowerCase() === 'require-key',
      throughputPlacement: () => !isOff(env.HUB_POOL_THROUGHPUT_PLACEMENT),
      contentionPlacement: () => !isOff(env.HUB_POOL_CONTENTION_PLACEMENT),
      slowerPlacementRatio: ratio,
      slowerPlacementFloorMs: floor,
    },
  };
  return Object.freeze(hubEnv);
}

/** The data dir: CIHUB_DATA_DIR, else ~/.cihub. Also what the CLI uses to find its Hub. */
export function dataDirFromEnv(env: Env): string {
  const dir = env.CIHUB_DATA_DIR?.trim();
  return dir ? dir : join(homedir(), '.cihub');
}

/** The process environment, handed out from here so no other module reads it directly. */
export function processEnv(): Env {
  return process.env;
}

/** CI_HUB_ASSUME_YES=1 answers the CLI's confirmations with yes. */
export function assumeYes(env: Env): boolean {
  return isTrue(env.CI_HUB_ASSUME_YES);
}
