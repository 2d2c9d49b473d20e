/**
 * The Hub's environment, parsed once at start and frozen. Nothing outside config/ reads
 * process.env. Knobs the spec says are read per request (placement switches, tailnet auth)
 * are exposed as accessors over the same environment object rather than copied.
 */
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { EngineKind } from '../engines/engine-kind.js';
import { parseAllowedHosts, parseAllowedOrigins, parseTrustedProxies } from './edge-trust.js';
import { EnvError } from './env-error.js';
import { findExecutable, findTailscale } from './find-executable.js';
import { HEAP_GROWING_PERCENT, MAX_HEAP_GROWING_PERCENT } from '../util/heap-growth.js';
import { MAX_TIMER_DELAY_MS } from '../util/timer.js';
import { normalizePeerName, normalizeTailnetSuffix } from '../tailnet/peer-name.js';

/** Default engine addresses: each engine's usual port on this machine. */
export const DEFAULT_ENGINE_URLS: Readonly<Record<Exclude<EngineKind, 'llamacpp'>, string>> = {
  ollama: 'http://127.0.0.1:11434',
  vllm: 'http://127.0.0.1:8000',
  lemonade: 'http://127.0.0.1:13305',
  omlx: 'http://127.0.0.1:8000',
};

export const DEFAULT_API_PORT = 5002;
/** Where Docker's socket is mounted by default, on a host and in a container alike. */
export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';
export const DEFAULT_HOST = '127.0.0.1';
/** First-byte budget floor (spec, Failover): 300 s. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 300_000;
/** Prefill rate the first-byte budget assumes for long prompts (spec, Failover): 50 tok/s. */
export const DEFAULT_MIN_PREFILL_TOKENS_PER_SEC = 50;
/**
 * The slowest prefill rate taken: one token per 1000 s. Far below it the deadline of a short
 * prompt came out as Infinity, which the HTTP client refuses, so every pooled request failed.
 */
export const MIN_PREFILL_TOKENS_PER_SEC_FLOOR = 0.001;
/** Routing-log ring (spec, Ring size): 200 rows by default, 200-10,000 by env at start-up. */
export const DEFAULT_ROUTING_LOG_SIZE = 200;
export const MIN_ROUTING_LOG_SIZE = 200;
export const MAX_ROUTING_LOG_SIZE = 10_000;
/** Prompt-ceiling range (spec, Required configuration): whole numbers 1024-1048576. */
export const MIN_PROMPT_CEILING_TOKENS = 1024;
export const MAX_PROMPT_CEILING_TOKENS = 1_048_576;
export const DEFAULT_SLOWER_PLACEMENT_RATIO = 3;
export const DEFAULT_SLOWER_PLACEMENT_FLOOR_MS = 20_000;
/** How long a session's placement is remembered (spec, Prefix affinity): 10 minutes. */
export const DEFAULT_PREFIX_AFFINITY_TTL_MS = 600_000;
/** How often queued spans go to the OTLP collector (OTEL_BSP_SCHEDULE_DELAY's default): 5 s. */
export const DEFAULT_OTLP_EXPORT_INTERVAL_MS = 5_000;
export const DEFAULT_OTEL_SERVICE_NAME = 'cihub';
/** A day: a prefix surviving longer than that in a shared slot is not a guess worth making. */
export const MAX_PREFIX_AFFINITY_TTL_MS = 86_400_000;

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
  /** HUB_POOL_PREFIX_AFFINITY_TTL_MS: how long after its last placement a session's entry expires. */
  readonly prefixAffinityTtlMs: number;
  /** HUB_HEAP_GROWING_PERCENT: how far `cihub serve` lets V8's old generation grow past what the last full collection kept (util/heap-growth.ts); 0 leaves V8's own rule. */
  readonly heapGrowingPercent: number;
  /** HUB_TRUST_PROXY: addresses and CIDR ranges whose X-Forwarded-For names the caller (config/edge-trust.ts). */
  readonly trustedProxies: readonly string[];
  /** Whether the operator set HUB_TRUST_PROXY to a list: the pairing limiter then always keys on the address (pairing/limiter-source.ts). */
  readonly proxiesNamed: boolean;
  /** HUB_ALLOWED_HOSTS: extra Host names this Hub answers to. */
  readonly allowedHosts: readonly string[];
  /** HUB_ALLOWED_ORIGINS: browser origins that may call this Hub (`*` for any). */
  readonly allowedOrigins: readonly string[];
  readonly logLevel: string;
  /** HUB_NODE_FQDN, normalised as peers store names: this Hub's MagicDNS name, standing in for tailscale status (development, Docker, tests); null when unset or refused. */
  readonly nodeFqdn: string | null;
  /** HUB_TAILNET_SUFFIX, normalised: the tailnet's MagicDNS suffix, standing in for tailscale status; null when unset or refused. */
  readonly tailnetSuffix: string | null;
  /** HUB_POOL_PEER_ORIGINS, raw: `name=origin,...` maps a peer's name to where it is dialled instead of https://<name>. */
  readonly peerOriginsRaw: string | null;
  /** HUB_POOL_IDENTITY_SECRET: seals the identity key instead of <data-dir>/identity.secret. */
  readonly identitySecret: string | null;
  /** TAILSCALE_OAUTH_CLIENT_ID and _SECRET are both set (the Admin API leg of discovery). */
  readonly tailscaleAdminApiConfigured: boolean;
  /** The OAuth client for the Tailscale Admin API; null unless both variables are set. */
  readonly tailscaleOAuth: { readonly clientId: string; readonly clientSecret: string } | null;
  /** Absolute path of the `tailscale` executable found on PATH at start; null when there is none. */
  readonly tailscaleBinary: string | null;
  /** Absolute path of `nvidia-smi` found on PATH at start (hardware tier detection); null when there is none. */
  readonly nvidiaSmiBinary: string | null;
  /** OpenTelemetry trace export (OTLP/HTTP, JSON); null when OTEL_EXPORTER_OTLP_ENDPOINT and _TRACES_ENDPOINT are unset: nothing is exported. */
  readonly otlp: OtlpExport | null;
  /**
   * HUB_DOCKER_SOCKET, else the default socket when it exists at start; null when there is none
   * or the variable is `off`. Container counts are collected only through it.
   */
  readonly dockerSocket: string | null;
  /** HUB_COMPOSE_PROJECTS: the compose projects counted; null: the project of the Hub's own container. */
  readonly composeProjects: readonly string[] | null;
  /** Values the schema refused, each replaced by its default: the Hub logs one warning per entry at start. */
  readonly problems: readonly EnvProblem[];
  /** Per-request knobs: read the environment at call time, as the spec asks. */
  readonly knobs: Knobs;
}

/** Where and how spans are exported (src/tracing/otlp-exporter.ts). */
export interface OtlpExport {
  /** The full traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  readonly tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_HEADERS (`name=value,...`, values percent-decoded): sent with each export. */
  readonly headers: Readonly<Record<string, string>>;
  /** OTEL_SERVICE_NAME, default cihub. */
  readonly serviceName: string;
  /** OTEL_BSP_SCHEDULE_DELAY: ms between exports. */
  readonly intervalMs: number;
}

export interface Knobs {
  /** HUB_INFERENCE_TAILNET_AUTH=require-key: tailnet callers need an inference key. */
  tailnetRequiresKey(): boolean;
  throughputPlacement(): boolean;
  contentionPlacement(): boolean;
  slowerPlacementRatio(): number;
  slowerPlacementFloorMs(): number;
}

export type Env = Readonly<Record<string, string | undefined>>;

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const OFF_WORDS = new Set(['0', 'false', 'off', 'no']);
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function isTrue(value: string | undefined): boolean {
  return value !== undefined && TRUE_WORDS.has(value.trim().toLowerCase());
}

function isOff(value: string | undefined): boolean {
  return value !== undefined && OFF_WORDS.has(value.trim().toLowerCase());
}

/** A variable whose value was not usable: logged once at start, with what the Hub used instead. */
export interface EnvProblem {
  readonly variable: string;
  readonly value: string;
  /** What is wrong with it, as a predicate: "is not a whole number". */
  readonly problem: string;
  /** What the Hub does instead, in words: "200", "no env ceiling". */
  readonly usedInstead: string;
}

export { EnvError };

const wholeIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'is not a whole number')
    .transform(Number)
    .pipe(z.number().max(max, `is above ${max}`).min(min, `is below ${min}`));
const numberAtLeast = (min: number) =>
  z.string().transform((v, ctx) => {
    const n = Number(v);
    if (Number.isFinite(n) && n >= min) return n;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: Number.isFinite(n) ? `is below ${min}` : 'is not a number' });
    return z.NEVER;
  });
const flag = z
  .string()
  .transform((v) => v.toLowerCase())
  .refine((v) => TRUE_WORDS.has(v) || OFF_WORDS.has(v), 'is not one of true, false, 1, 0, yes, no, on, off')
  .transform((v) => TRUE_WORDS.has(v));
const text = z.string();
/**
 * A listen address: an IP literal (v4, or v6 without brackets, as listen takes it) or a host name
 * of RFC 1123 labels. Anything else failed only at listen, as `getaddrinfo ENOTFOUND`, after the
 * data dir had been written.
 */
export function isListenHost(value: string): boolean {
  if (isIP(value) !== 0) return true;
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const labels = name.split('.');
  // An all-digit last label reads as IPv4 (300.1.1.1, 10.1), not as a name to look up.
  if (/^\d+$/.test(labels.at(-1) ?? '')) return false;
  return name.length > 0 && name.length <= 253 && labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(label));
}
const LISTEN_HOST_PROBLEM = 'is not an IP address or a host name';
const listenHost = z.string().refine(isListenHost, LISTEN_HOST_PROBLEM);
/**
 * The tailnet stand-ins, in the form peers compare against. One that does not normalise is refused
 * here, with the start-up warning, so that nothing downstream sees a stand-in that is set but
 * unusable: that left a Hub with no name and not published with Serve, and nothing said why.
 */
const magicDnsName = z.string().transform((v, ctx) => {
  const name = normalizePeerName(v);
  if (name.ok) return name.name;
  ctx.addIssue({ code: z.ZodIssueCode.custom, message: name.problem });
  return z.NEVER;
});
/**
 * A suffix no peer name can end in is refused too: peer names whose last label is numeric are
 * (tailnet/peer-name.ts), so under 100.64.0.1 every pairing was refused as outside the tailnet.
 */
const magicDnsSuffix = z.string().transform((v, ctx) => {
  const suffix = normalizeTailnetSuffix(v);
  const nameUnder = suffix === null ? null : normalizePeerName(`host.${suffix}`);
  if (suffix !== null && nameUnder?.ok === true) return suffix;
  const message =
    isIP(v.trim()) !== 0
      ? 'is an IP address, not a DNS suffix such as tail1234.ts.net'
      : nameUnder?.ok === false
        ? `${nameUnder.problem}, so no peer name could end in it`
        : 'is not a DNS suffix such as tail1234.ts.net';
  ctx.addIssue({ code: z.ZodIssueCode.custom, message });
  return z.NEVER;
});
const httpUrl = z.string().refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'is not an http:// or https:// URL');
/**
 * A collector URL: the Hub logs it and quotes it in export errors, and sends no credential from
 * it, so a user name or password there was written to the log and did nothing (tracing audit,
 * 2026-12-07). A collector's credential goes in OTEL_EXPORTER_OTLP_HEADERS.
 */
const otlpUrl = httpUrl.refine(
  (u) => !hasCredentials(u),
  'carries a user name or password, which the Hub does not send; give the URL without them and the credential in OTEL_EXPORTER_OTLP_HEADERS',
);
/**
 * OTEL_TRACES_EXPORTER: OpenTelemetry's switch for where spans go. `none` is its usual way to turn
 * export off, and was ignored: spans went to the collector the endpoint named (tracing audit,
 * 2026-12-07). Only OTLP is built, so another exporter's name is refused.
 */
const tracesExporter = z.string().refine((v) => v === 'otlp' || v === 'none', 'is not otlp or none, the trace exporters this Hub has');
/** The one OTLP encoding this Hub sends; gRPC and binary protobuf are not built. */
const OTLP_PROTOCOL = 'http/json';
const otlpProtocol = z.string().refine((v) => v === OTLP_PROTOCOL, `is not ${OTLP_PROTOCOL}, the one OTLP protocol this Hub sends`);
/** `name=value,...` with percent-encoded values (the OpenTelemetry spec's format for OTEL_EXPORTER_OTLP_HEADERS). */
const headerList = z.string().transform((v, ctx) => {
  const out: Record<string, string> = {};
  for (const entry of v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.indexOf('=');
    const name = eq > 0 ? entry.slice(0, eq).trim().toLowerCase() : '';
    let value: string | null = null;
    try {
      value = eq > 0 ? decodeURIComponent(entry.slice(eq + 1).trim()) : null;
    } catch {
      value = null;
    }
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name) || value === null || /[\r\n\0]/.test(value)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not a list of name=value pairs' });
      return z.NEVER;
    }
    out[name] = value;
  }
  return out;
});

/**
 * Every variable the Hub reads, one zod schema. Values are trimmed and a blank one counts as
 * unset before the schema sees them. A value the schema refuses falls back to its entry in
 * FALLBACKS and is reported once at start (spec, Required configuration: an out-of-range prompt
 * ceiling "is ignored rather than guessed at"; the slower-placement knobs read as the default).
 * Engine URL lists are parsed by enginesFromEnv, which reports its own problems the same way.
 */
export const ENV_SCHEMA = z.object({
  API_PORT: wholeIn(0, 65_535).optional(),
  HUB_HOST: listenHost.optional(),
  CIHUB_DATA_DIR: text.optional(),
  // Any case, as the switches and `cihub logs --level` take it: DEBUG is a common spelling in unit and compose files.
  HUB_LOG_LEVEL: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(LOG_LEVELS, { message: `is not one of ${LOG_LEVELS.join(', ')}` }))
    .optional(),
  HUB_POOL_USER_DISABLED: flag.optional(),
  HUB_POOL_OUTBOUND_DISABLED: flag.optional(),
  HUB_POOL_INBOUND_DISABLED: flag.optional(),
  HUB_POOL_MAX_PROMPT_TOKENS: wholeIn(MIN_PROMPT_CEILING_TOKENS, MAX_PROMPT_CEILING_TOKENS).optional(),
  // No more than a timer can wait (util/timer.ts): a longer floor would be held there anyway.
  HUB_POOL_FIRST_BYTE_TIMEOUT_MS: wholeIn(1, MAX_TIMER_DELAY_MS).optional(),
  HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: numberAtLeast(MIN_PREFILL_TOKENS_PER_SEC_FLOOR).optional(),
  HUB_POOL_ROUTING_LOG_SIZE: wholeIn(MIN_ROUTING_LOG_SIZE, MAX_ROUTING_LOG_SIZE).optional(),
  HUB_POOL_THROUGHPUT_PLACEMENT: flag.optional(),
  HUB_POOL_CONTENTION_PLACEMENT: flag.optional(),
  HUB_POOL_SLOWER_PLACEMENT_RATIO: numberAtLeast(1).optional(),
  HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS: numberAtLeast(0).optional(),
  HUB_POOL_PREFIX_AFFINITY_TTL_MS: wholeIn(1, MAX_PREFIX_AFFINITY_TTL_MS).optional(),
  HUB_HEAP_GROWING_PERCENT: wholeIn(0, MAX_HEAP_GROWING_PERCENT).optional(),
  // Security lists: config/edge-trust.ts parses them, and refuses to start on an entry it cannot read.
  HUB_TRUST_PROXY: text.optional(),
  HUB_ALLOWED_HOSTS: text.optional(),
  HUB_ALLOWED_ORIGINS: text.optional(),
  HUB_INFERENCE_TAILNET_AUTH: z
    .string()
    .transform((v) => v.toLowerCase())
    .refine((v) => v === 'require-key', 'is not require-key, the one value it takes')
    .optional(),
  HUB_NODE_FQDN: magicDnsName.optional(),
  HUB_TAILNET_SUFFIX: magicDnsSuffix.optional(),
  HUB_POOL_PEER_ORIGINS: text.optional(),
  HUB_POOL_IDENTITY_SECRET: text.optional(),
  TAILSCALE_OAUTH_CLIENT_ID: text.optional(),
  TAILSCALE_OAUTH_CLIENT_SECRET: text.optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: headerList.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: headerList.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_SERVICE_NAME: text.optional(),
  OTEL_BSP_SCHEDULE_DELAY: wholeIn(1, 3_600_000).optional(),
  OTEL_SDK_DISABLED: flag.optional(),
  OTEL_TRACES_EXPORTER: tracesExporter.optional(),
  HUB_DOCKER_SOCKET: text.optional(),
  HUB_COMPOSE_PROJECTS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    )
    .refine(
      (list) => list.length > 0 && list.every((p) => /^[a-z0-9][a-z0-9_-]{0,62}$/.test(p)),
      'is not a comma-separated list of compose project names (lower case, digits, - and _)',
    )
    .optional(),
});
type EnvVariable = keyof typeof ENV_SCHEMA.shape;
type EnvValues = z.infer<typeof ENV_SCHEMA>;

/** The variables a value can be refused for: all but those read as plain text, which takes any non-blank value. */
type RefusableVariable = { [K in EnvVariable]: (typeof ENV_SCHEMA.shape)[K] extends z.ZodOptional<z.ZodString> ? never : K }[EnvVariable];

/** What stands in for a refused value, in words for the start-up warning; null: the Hub refuses to start. */
const FALLBACKS: Readonly<Record<RefusableVariable, string | null>> = {
  // A Hub on another port than the one its operator named is unreachable where apps look for it.
  API_PORT: null,
  // Nor an address: listening anywhere else is not what its operator asked for.
  HUB_HOST: null,
  HUB_LOG_LEVEL: 'info',
  HUB_POOL_USER_DISABLED: 'false',
  HUB_POOL_OUTBOUND_DISABLED: 'false',
  HUB_POOL_INBOUND_DISABLED: 'false',
  HUB_POOL_MAX_PROMPT_TOKENS: 'no env ceiling (the poolMaxPromptTokens setting applies)',
  HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(DEFAULT_FIRST_BYTE_TIMEOUT_MS),
  HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: String(DEFAULT_MIN_PREFILL_TOKENS_PER_SEC),
  HUB_POOL_ROUTING_LOG_SIZE: String(DEFAULT_ROUTING_LOG_SIZE),
  HUB_POOL_THROUGHPUT_PLACEMENT: 'on',
  HUB_POOL_CONTENTION_PLACEMENT: 'on',
  HUB_POOL_SLOWER_PLACEMENT_RATIO: String(DEFAULT_SLOWER_PLACEMENT_RATIO),
  HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS: String(DEFAULT_SLOWER_PLACEMENT_FLOOR_MS),
  HUB_POOL_PREFIX_AFFINITY_TTL_MS: String(DEFAULT_PREFIX_AFFINITY_TTL_MS),
  HUB_HEAP_GROWING_PERCENT: String(HEAP_GROWING_PERCENT),
  // Nor a guess at who needs a key: the default admits tailnet callers without one, so a
  // mistyped require_key or "true" would open what the operator meant to close.
  HUB_INFERENCE_TAILNET_AUTH: null,
  HUB_NODE_FQDN: "no stand-in name (Tailscale's name for this Hub, unless HUB_TAILNET_SUFFIX is set)",
  HUB_TAILNET_SUFFIX: "no stand-in suffix (HUB_NODE_FQDN's, else Tailscale's)",
  OTEL_EXPORTER_OTLP_ENDPOINT: 'no trace export',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'OTEL_EXPORTER_OTLP_ENDPOINT, or no trace export',
  // Exporting without the collector's credential would only collect refusals.
  OTEL_EXPORTER_OTLP_HEADERS: 'no trace export',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'no trace export',
  OTEL_EXPORTER_OTLP_PROTOCOL: OTLP_PROTOCOL,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: OTLP_PROTOCOL,
  OTEL_BSP_SCHEDULE_DELAY: String(DEFAULT_OTLP_EXPORT_INTERVAL_MS),
  OTEL_SDK_DISABLED: 'false',
  // An exporter this Hub does not have sends nothing, rather than to a collector it was not meant for.
  OTEL_TRACES_EXPORTER: 'no trace export',
  HUB_COMPOSE_PROJECTS: "the compose project of the Hub's own container",
};

const VARIABLES = Object.keys(ENV_SCHEMA.shape) as EnvVariable[];
/** Variables whose value is never repeated in a warning: it may be a collector's token. */
const SECRET_VARIABLES: ReadonlySet<EnvVariable> = new Set(['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']);
/** URL variables a warning quotes with any credentials in them masked. */
const URL_VARIABLES: ReadonlySet<EnvVariable> = new Set(['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);

function trimmedOrUnset(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** One variable through its schema, read at call time: the per-request knobs. Invalid reads as unset. */
function readOne<K extends EnvVariable>(env: Env, key: K): EnvValues[K] | undefined {
  const result = ENV_SCHEMA.shape[key].safeParse(trimmedOrUnset(env[key]));
  return result.success ? (result.data as EnvValues[K]) : undefined;
}

const NOT_READ: unique symbol = Symbol('not read yet');

/**
 * A per-request knob: the variable is read on every call, as the spec asks, but run through its
 * schema only when its raw value differs from the last call's. Five knobs went through zod on
 * every proxied request, 0.9% of the Hub's busy time in the bench:quick profile (2026-12-02).
 */
function knob<K extends EnvVariable, T>(env: Env, key: K, valueOf: (v: EnvValues[K] | undefined) => T): () => T {
  let lastRaw: string | undefined | typeof NOT_READ = NOT_READ;
  let last: T;
  return () => {
    const raw = env[key];
    if (raw !== lastRaw) {
      last = valueOf(readOne(env, key));
      lastRaw = raw;
    }
    return last;
  };
}

/** Every variable through the schema; a refused value is dropped (its default applies) and reported. */
export function parseEnvValues(env: Env): { values: EnvValues; problems: EnvProblem[] } {
  const raw = Object.fromEntries(VARIABLES.map((k) => [k, trimmedOrUnset(env[k])]));
  const first = ENV_SCHEMA.safeParse(raw);
  if (first.success) return { values: first.data, problems: [] };
  const refused = new Map<EnvVariable, string>();
  for (const issue of first.error.issues) {
    const key = issue.path[0] as EnvVariable;
    if (!refused.has(key)) refused.set(key, issue.message);
  }
  for (const key of refused.keys()) raw[key] = undefined;
  const problems = [...refused].map(([variable, problem]) => {
    const given = env[variable] ?? '';
    const value = SECRET_VARIABLES.has(variable) ? '(hidden: it may hold a credential)' : URL_VARIABLES.has(variable) ? quotableUrl(given) : given;
    // Only a refusable variable has an issue: the plain-text ones accept every value they are given.
    const usedInstead = FALLBACKS[variable as RefusableVariable];
    if (usedInstead === null) throw new EnvError(variable, `${variable}=${value} ${problem}: fix or unset it.`);
    return { variable, value, problem, usedInstead };
  });
  return { values: ENV_SCHEMA.parse(raw), problems };
}

/** Engine endpoints from OLLAMA_URL, VLLM_URL, LEMONADE_URL, OMLX_URL and LLAMACPP_URL. */
export function enginesFromEnv(env: Env, problems: EnvProblem[] = []): EngineEndpoint[] {
  const out: EngineEndpoint[] = [];
  const add = (kind: EngineKind, variable: string, fallback: string | undefined) => {
    const raw = env[variable];
    // An empty value (or "off") switches an engine off; unset takes the default address.
    const value = raw === undefined ? fallback : raw.trim();
    if (value === undefined || value === '' || isOff(value)) return;
    const urls = value
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean)
      .filter((url) => {
        const ok = engineUrl.safeParse(url);
        if (!ok.success)
          problems.push({
            variable,
            value: quotableUrl(url),
            problem: ok.error.issues[0]?.message ?? 'is not a URL',
            usedInstead: 'the list without that entry',
          });
        return ok.success;
      });
    urls.forEach((url, i, all) => {
      out.push({ id: all.length > 1 ? `${kind}-${i + 1}` : kind, kind, url: url.replace(/\/+$/, '') });
    });
  };
  add('ollama', 'OLLAMA_URL', DEFAULT_ENGINE_URLS.ollama);
  add('vllm', 'VLLM_URL', DEFAULT_ENGINE_URLS.vllm);
  add('lemonade', 'LEMONADE_URL', DEFAULT_ENGINE_URLS.lemonade);
  add('omlx', 'OMLX_URL', DEFAULT_ENGINE_URLS.omlx);
  add('llamacpp', 'LLAMACPP_URL', undefined);
  return out;
}

const engineUrl = z
  .string()
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'is not an http:// or https:// URL')
  // The Hub sends no credentials from an engine URL, and writes engine URLs into its log.
  .refine((u) => !hasCredentials(u), 'carries a user name or password, which the Hub does not send; give the URL without them');

function hasCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username !== '' || password !== '';
}

/** The URL as a warning may quote it: any credentials in it masked. */
function quotableUrl(url: string): string {
  if (!hasCredentials(url)) return url;
  const u = new URL(url);
  u.username = '***';
  u.password = '';
  return u.href;
}

export interface EnvOverrides {
  readonly port?: number | undefined;
  readonly host?: string | undefined;
  readonly dataDir?: string | undefined;
}

/**
 * The Hub's environment, parsed once. Throws EnvError for a value the Hub refuses to start with;
 * every other unusable value is in `problems`, for the one start-up warning each.
 */
export function loadEnv(env: Env, overrides: EnvOverrides = {}): HubEnv {
  if (overrides.host !== undefined && !isListenHost(overrides.host))
    throw new EnvError('--host', `--host ${JSON.stringify(overrides.host)} ${LISTEN_HOST_PROBLEM}: give an address such as 127.0.0.1, 0.0.0.0 or ::1.`);
  // A --port or --host flag replaces its variable, so a bad API_PORT or HUB_HOST beside it refuses nothing.
  const { values: v, problems } = parseEnvValues({
    ...env,
    ...(overrides.port === undefined ? {} : { API_PORT: undefined }),
    ...(overrides.host === undefined ? {} : { HUB_HOST: undefined }),
  });
  const engines = enginesFromEnv(env, problems);
  const tailscaleOAuth = tailscaleOAuthFrom(v, problems);
  const hubEnv: HubEnv = {
    port: overrides.port ?? v.API_PORT ?? DEFAULT_API_PORT,
    host: overrides.host ?? v.HUB_HOST ?? DEFAULT_HOST,
    dataDir: overrides.dataDir ?? dataDirFromEnv(env),
    engines: Object.freeze(engines),
    userDisabled: v.HUB_POOL_USER_DISABLED ?? false,
    outboundDisabled: v.HUB_POOL_OUTBOUND_DISABLED ?? false,
    inboundDisabled: v.HUB_POOL_INBOUND_DISABLED ?? false,
    maxPromptTokens: v.HUB_POOL_MAX_PROMPT_TOKENS ?? null,
    firstByteTimeoutMs: v.HUB_POOL_FIRST_BYTE_TIMEOUT_MS ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    minPrefillTokensPerSec: v.HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC ?? DEFAULT_MIN_PREFILL_TOKENS_PER_SEC,
    routingLogSize: v.HUB_POOL_ROUTING_LOG_SIZE ?? DEFAULT_ROUTING_LOG_SIZE,
    prefixAffinityTtlMs: v.HUB_POOL_PREFIX_AFFINITY_TTL_MS ?? DEFAULT_PREFIX_AFFINITY_TTL_MS,
    heapGrowingPercent: v.HUB_HEAP_GROWING_PERCENT ?? HEAP_GROWING_PERCENT,
    trustedProxies: parseTrustedProxies(v.HUB_TRUST_PROXY),
    proxiesNamed: v.HUB_TRUST_PROXY !== undefined && v.HUB_TRUST_PROXY.trim() !== '' && parseTrustedProxies(v.HUB_TRUST_PROXY).length > 0,
    allowedHosts: parseAllowedHosts(v.HUB_ALLOWED_HOSTS),
    allowedOrigins: parseAllowedOrigins(v.HUB_ALLOWED_ORIGINS),
    logLevel: v.HUB_LOG_LEVEL ?? 'info',
    nodeFqdn: v.HUB_NODE_FQDN ?? null,
    tailnetSuffix: tailnetSuffixFrom(v, problems),
    peerOriginsRaw: v.HUB_POOL_PEER_ORIGINS ?? null,
    // Not trimmed: a secret is used exactly as given. A blank one is unset, as every blank value
    // is here (docs/operator-guide.md, Environment), not a secret of a few spaces.
    identitySecret: v.HUB_POOL_IDENTITY_SECRET === undefined ? null : (env.HUB_POOL_IDENTITY_SECRET ?? null),
    tailscaleAdminApiConfigured: tailscaleOAuth !== null,
    tailscaleOAuth,
    tailscaleBinary: findTailscale(env.PATH, process.platform),
    nvidiaSmiBinary: findExecutable('nvidia-smi', env.PATH),
    otlp: otlpFrom(v, env, problems, unreadOtelVariables(env)),
    ...containerSourceFrom(v, env, problems),
    problems: Object.freeze(problems),
    knobs: {
      tailnetRequiresKey: knob(env, 'HUB_INFERENCE_TAILNET_AUTH', (v) => v === 'require-key'),
      throughputPlacement: knob(env, 'HUB_POOL_THROUGHPUT_PLACEMENT', (v) => v ?? true),
      contentionPlacement: knob(env, 'HUB_POOL_CONTENTION_PLACEMENT', (v) => v ?? true),
      slowerPlacementRatio: knob(env, 'HUB_POOL_SLOWER_PLACEMENT_RATIO', (v) => v ?? DEFAULT_SLOWER_PLACEMENT_RATIO),
      slowerPlacementFloorMs: knob(env, 'HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS', (v) => v ?? DEFAULT_SLOWER_PLACEMENT_FLOOR_MS),
    },
  };
  return Object.freeze(hubEnv);
}

/**
 * The Admin API's OAuth client when both halves are set. One half alone reaches no API, so it is
 * reported at start rather than left to look like a discovery that found nobody.
 */
function tailscaleOAuthFrom(v: EnvValues, problems: EnvProblem[]): HubEnv['tailscaleOAuth'] {
  const clientId = v.TAILSCALE_OAUTH_CLIENT_ID;
  const clientSecret = v.TAILSCALE_OAUTH_CLIENT_SECRET;
  if (clientId !== undefined && clientSecret !== undefined) return Object.freeze({ clientId, clientSecret });
  const usedInstead = 'no Tailscale Admin API in discovery (set both variables, or neither)';
  if (clientId !== undefined)
    problems.push({ variable: 'TAILSCALE_OAUTH_CLIENT_ID', value: clientId, problem: 'is set without TAILSCALE_OAUTH_CLIENT_SECRET', usedInstead });
  if (clientSecret !== undefined)
    problems.push({
      variable: 'TAILSCALE_OAUTH_CLIENT_SECRET',
      value: '(hidden: it is a credential)',
      problem: 'is set without TAILSCALE_OAUTH_CLIENT_ID',
      usedInstead,
    });
  return null;
}

/** The variables that shape an export, and so do nothing without an endpoint to export to. */
const OTLP_EXPORT_SHAPERS = [
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_SERVICE_NAME',
  'OTEL_BSP_SCHEDULE_DELAY',
] as const satisfies readonly EnvVariable[];

/**
 * OTEL_ variables set here that the Hub does not read (OTEL_BSP_MAX_QUEUE_SIZE, OTEL_TRACES_SAMPLER,
 * ...). An operator who sets one expects an OpenTelemetry SDK to honour it; the Hub has its own
 * small exporter, so each is named at start rather than silently left inert.
 */
function unreadOtelVariables(env: Env): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('OTEL_') && !Object.hasOwn(ENV_SCHEMA.shape, name) && (env[name] ?? '').trim() !== '')
    .sort();
}

/**
 * Trace export when an endpoint is set and OTEL_SDK_DISABLED is not true; a refused header list
 * switches it off (the collector would refuse every export). A variable that shapes the export,
 * set with no endpoint, is reported: a misspelt endpoint variable otherwise left a collector's
 * credential set and nothing sent, with no word of why.
 */
function otlpFrom(v: EnvValues, env: Env, problems: EnvProblem[], unread: readonly string[]): OtlpExport | null {
  const base = v.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl = v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  const refused = (variable: EnvVariable) => problems.some((p) => p.variable === variable);
  const off = v.OTEL_SDK_DISABLED === true || v.OTEL_TRACES_EXPORTER === 'none' || refused('OTEL_TRACES_EXPORTER');
  if (tracesUrl === undefined && !off) {
    for (const variable of OTLP_EXPORT_SHAPERS.filter((k) => v[k] !== undefined))
      problems.push({
        variable,
        value: SECRET_VARIABLES.has(variable) ? '(hidden: it may hold a credential)' : (env[variable] ?? ''),
        problem: 'is set, but neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is',
        usedInstead: 'no trace export',
      });
  }
  if (tracesUrl === undefined || off || refused('OTEL_EXPORTER_OTLP_HEADERS') || refused('OTEL_EXPORTER_OTLP_TRACES_HEADERS')) return null;
  for (const variable of unread)
    problems.push({
      variable,
      value: /HEADERS|KEY|SECRET|TOKEN|PASSWORD/.test(variable) ? '(hidden: it may hold a credential)' : (env[variable] ?? '').slice(0, 200),
      problem: 'is not a variable this Hub reads: it exports spans itself, with the few OTEL_ settings docs/operator-guide.md lists',
      usedInstead: 'what that page describes',
    });
  return Object.freeze({
    tracesUrl,
    // The traces-only list wins name by name, as OpenTelemetry reads the pair.
    headers: Object.freeze({ ...v.OTEL_EXPORTER_OTLP_HEADERS, ...v.OTEL_EXPORTER_OTLP_TRACES_HEADERS }),
    serviceName: v.OTEL_SERVICE_NAME ?? DEFAULT_OTEL_SERVICE_NAME,
    intervalMs: v.OTEL_BSP_SCHEDULE_DELAY ?? DEFAULT_OTLP_EXPORT_INTERVAL_MS,
  });
}

/**
 * HUB_TAILNET_SUFFIX, unless HUB_NODE_FQDN names this Hub under another suffix. MagicDNS names
 * are host.<suffix>, so the two cannot both be right; taken as given, the suffix refused every
 * peer on the name's own tailnet (pairing, pins) while doctor showed the name as fine. The name
 * is the more specific statement, so its suffix is used (tailnet/tailnet-self.ts derives it).
 */
function tailnetSuffixFrom(v: EnvValues, problems: EnvProblem[]): string | null {
  const suffix = v.HUB_TAILNET_SUFFIX ?? null;
  const name = v.HUB_NODE_FQDN;
  if (suffix === null || name === undefined || name.endsWith(`.${suffix}`)) return suffix;
  problems.push({
    variable: 'HUB_TAILNET_SUFFIX',
    value: suffix,
    problem: `is not the suffix of HUB_NODE_FQDN=${name}`,
    usedInstead: `${name.slice(name.indexOf('.') + 1)}, the name's own suffix`,
  });
  return null;
}

/**
 * The Docker socket and the compose projects counted through it. Projects named with no socket
 * to read them through are reported: otherwise nothing was counted and nothing said why, while
 * doctor's check read "no Docker socket is mounted" as a fine answer.
 */
function containerSourceFrom(v: EnvValues, env: Env, problems: EnvProblem[]): Pick<HubEnv, 'dockerSocket' | 'composeProjects'> {
  const dockerSocket = dockerSocketFrom(v.HUB_DOCKER_SOCKET);
  const composeProjects = v.HUB_COMPOSE_PROJECTS ? Object.freeze(v.HUB_COMPOSE_PROJECTS) : null;
  if (dockerSocket === null && composeProjects !== null)
    problems.push({
      variable: 'HUB_COMPOSE_PROJECTS',
      value: env.HUB_COMPOSE_PROJECTS ?? '',
      problem:
        v.HUB_DOCKER_SOCKET === undefined
          ? `is set, but there is no Docker socket at ${DEFAULT_DOCKER_SOCKET} (mount it, or name one with HUB_DOCKER_SOCKET)`
          : 'is set, but HUB_DOCKER_SOCKET is off',
      usedInstead: 'no container counts',
    });
  return { dockerSocket, composeProjects };
}

/** HUB_DOCKER_SOCKET (`off` switches collection off), else the default socket when one exists at start. */
function dockerSocketFrom(value: string | undefined): string | null {
  if (value !== undefined) return isOff(value) ? null : value;
  try {
    return statSync(DEFAULT_DOCKER_SOCKET).isSocket() ? DEFAULT_DOCKER_SOCKET : null;
  } catch {
    return null;
  }
}

/** The data dir: CIHUB_DATA_DIR, else ~/.cihub. Also what the CLI uses to find its Hub. */
export function dataDirFromEnv(env: Env): string {
  const dir = env.CIHUB_DATA_DIR?.trim();
  return dir ? dir : homeDataDir();
}

/** ~/.cihub of the account this process runs as: the data dir when nothing names another. */
export function homeDataDir(): string {
  return join(homedir(), '.cihub');
}

/** SUDO_USER: the account that ran sudo, when this process runs under it; null otherwise. */
export function sudoUser(env: Env): string | null {
  return env.SUDO_USER?.trim() || null;
}

/** The process environment, handed out from here so no other module reads it directly. */
export function processEnv(): Env {
  return process.env;
}

/**
 * CI_HUB_ASSUME_YES=1 answers the CLI's confirmations with yes. A value that is neither a yes nor
 * a no word throws EnvError: read as unset, `y` left a script told to set the variable it had set.
 */
export function assumeYes(env: Env): boolean {
  const value = trimmedOrUnset(env.CI_HUB_ASSUME_YES);
  if (value === undefined || isOff(value)) return false;
  if (isTrue(value)) return true;
  throw new EnvError('CI_HUB_ASSUME_YES', `CI_HUB_ASSUME_YES=${value} is not one of true, false, 1, 0, yes, no, on, off: set it to 1, or unset it.`);
}
