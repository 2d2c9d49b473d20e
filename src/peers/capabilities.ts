/**
 * The capabilities document a Hub publishes to its paired peers on GET /capabilities, and how
 * a peer's document is read back.
 *
 * Two rules shape both halves. First, a figure nobody measured is left off the wire rather
 * than sent as zero or null, so a peer can never mistake "cannot tell" for "idle". Second,
 * what a peer sends is untrusted: on reading, every optional key is checked on its own and
 * becomes null (not reported) when it is missing, of the wrong type, out of range or
 * contradicts itself. Nothing read here ever turns into 0, and one bad key never spoils the
 * others. Clamping happens here, on read, and never on the publishing side.
 */
import { MAX_CONTAINERS } from '../containers/docker-api.js';
import { NODE_UUID_PATTERN } from '../pairing/identity-claim.js';
import type { BackendView } from '../engines/types.js';
import { isReadableModelName, readableEngineKind } from '../engines/model-name.js';
import { readThroughputAdvert, type ThroughputAdvert } from './throughput-advert.js';
import { isHardwareTier, type HardwareTier } from '../machine/hardware-tier.js';
import { MAX_PRESSURE } from '../placement/peer-load.js';
import type { LocalUnservable } from '../placement/candidates.js';

/** Most models read from one peer engine; more is not a plausible inventory. */
export const MAX_PEER_MODELS_PER_ENGINE = 2_000;
/**
 * Models read from one peer document across all its engines: 4,000. Every request for auto
 * ranks the pool's offers, so an inventory of 16 x 2,000 names would be a cost one peer could
 * put on every request of every Hub.
 */
export const MAX_PEER_MODELS_TOTAL = 4_000;
/** Engines read from one peer document; the rest are ignored. */
const MAX_PEER_BACKENDS = 16;

/** A peer's prompt ceiling must sit in the same range this Hub's own setting allows. */
export const PROMPT_CEILING_RANGE = { min: 1024, max: 1_048_576 } as const;
/** Largest context window a peer may state; anything above is not a real model. */
export const MAX_NUM_CTX = 10_000_000;
/** Parallel Ollama slots a peer may state. */
export const OLLAMA_SLOTS_RANGE = { min: 1, max: 256 } as const;
/** A peer's GPU-pressure band: an integer from idle (0) to the top band. */
export const GPU_PRESSURE_RANGE = { min: 0, max: MAX_PRESSURE } as const;
/** Models a peer may list as unservable; a longer list is refused whole. */
export const MAX_UNSERVABLE_MODELS = 2_000;
/** Container CPU is summed across cores: 100 % per core, and no host has more than 1024. */
export const MAX_CONTAINER_CPU_PERCENT = 100 * 1024;
/** Memory beyond 2^53 bytes cannot be a real total (and stops being an exact number). */
export const MAX_CONTAINER_MEMORY_BYTES = 2 ** 53;

/** A node's managed containers as counts and totals only: never a name or a per-container row. */
export interface ContainerRollup {
  readonly running: number;
  /** Everything that exists and is not running; always total - running. */
  readonly stopped: number;
  readonly total: number;
  /** Summed CPU use of the running containers, percent of one core. */
  readonly cpuPercent: number;
  readonly memoryBytes: number;
}

/** One engine as a node lists it: its kind and the models on its disk. */
export interface ListedEngine {
  readonly kind: string;
  readonly models: readonly string[];
}

/**
 * One engine on the wire. `unservable` names the models of `models` this engine withholds now
 * (left off when none). The node-wide unservableModels names only what every engine withholds,
 * so without this a peer read a model one engine here withholds and another lists as served by
 * both, and sent a native request for it here when only the engine withholding it speaks native.
 */
export interface PublishedEngine extends ListedEngine {
  readonly unservable?: readonly string[];
}

/** A peer's document as this Hub reads it: every optional figure is null when not usable. */
export interface PeerCapabilities {
  /** The peer's node UUID as it reports it (authenticated by the route); null when absent. */
  readonly nodeUuid: string | null;
  /** Reported hardware tier; null when not reported or not one of the four tiers. */
  readonly hardwareTier: HardwareTier | null;
  /** The peer's engines and the models on their disks, what it says it withholds included. */
  readonly backends: readonly ListedEngine[];
  /**
   * The same engines listing only what each can serve now: a model the peer names unservable on
   * one engine is off that engine's list and stays on another's. The same array as backends when
   * the peer names nothing per engine (as every older build). Placement and the listings read it.
   */
  readonly servable: readonly ListedEngine[];
  /** Requests the peer has in flight by its own count; null when not reported. */
  readonly inFlightRequests: number | null;
  /** False when the peer is not taking work from this Hub (inbound off, or this Hub disabled there). */
  readonly acceptingWork: boolean;
  /** GPU-pressure band 0-3; null when not measured (the key is absent on the wire, never 0). */
  readonly gpuPressure: number | null;
  /** The peer's prompt ceiling in estimated tokens; null when it has none or sent a bad one. */
  readonly maxPromptTokens: number | null;
  /** Largest context window the peer will serve; null when not stated. */
  readonly maxNumCtx: number | null;
  /** Parallel slots of the peer's Ollama; null when not stated. */
  readonly ollamaSlots: number | null;
  /** The peer's container counts and totals; null when not reported or when any field was bad. */
  readonly containers: ContainerRollup | null;
  /** Models the peer lists but says it cannot serve; null when not sent or malformed. */
  readonly unservableModels: readonly string[] | null;
  /** What the peer's engines say about each model (size, capabilities); null when not published. */
  readonly modelDetails: ReadonlyMap<string, ModelDetail> | null;
  /** The peer's throughput bands per model (throughput-advert.ts); null when absent or malformed. */
  readonly throughput: ThroughputAdvert | null;
}

/**
 * The document as it goes on the wire. Optional keys are left out, not set to null, when
 * this node did not measure them: JSON keeps a null key, and a null reads too much like a
 * value that was measured.
 */
export interface CapabilitiesDocument {
  readonly nodeUuid: string;
  /**
   * This node's Ed25519 public key (raw, base64url), beside its UUID: the guarded route is where
   * both live since /identify stopped naming them (spec, "What /identify no longer says"). Left
   * out while this Hub has no identity to state.
   */
  readonly publicKey?: string;
  /** machine/hardware-tier.ts; null when detection has not finished or could not tell. */
  readonly hardwareTier: HardwareTier | null;
  readonly backends: readonly PublishedEngine[];
  readonly inFlightRequests: number;
  readonly acceptingWork: boolean;
  readonly maxPromptTokens?: number;
  readonly maxNumCtx?: number;
  readonly ollamaSlots?: number;
  readonly gpuPressure?: number;
  readonly containers?: ContainerRollup;
  readonly unservableModels?: readonly string[];
  readonly modelDetails?: Readonly<Record<string, ModelDetail>>;
  readonly throughput?: ThroughputAdvert;
}

/**
 * What an engine says about one model, published so every Hub ranks the auto alias on the same
 * facts: without it a Hub knew its own models' size and tools and nothing of its peers', and
 * each Hub resolved auto to one of its own models.
 */
export interface ModelDetail {
  /** e.g. "8.2B"; null when the engine did not say. */
  readonly parameterSize: string | null;
  /** e.g. ["completion", "tools"]; null when the engine did not say. */
  readonly capabilities: readonly string[] | null;
  /** True when the engine runs the model in a cloud (an Ollama cloud model); left off otherwise. */
  readonly remote?: true;
}

const MAX_DETAIL_CAPABILITIES = 16;
const MAX_DETAIL_TEXT = 32;

export interface PublishInputs {
  readonly nodeUuid: string;
  /** null while the identity has no key (never minted, or its row unreadable). */
  readonly publicKey?: string | null;
  readonly backends: readonly BackendView[];
  readonly inFlightRequests: number;
  /** Inbound on and this peer enabled here. */
  readonly acceptingWork: boolean;
  /** This node's prompt ceiling in force (env over setting); null when it has none. */
  readonly maxPromptTokens: number | null;
  /** This node's detected tier (machine/hardware-report.ts); null or absent when it has none. */
  readonly hardwareTier?: HardwareTier | null;
  /** Optional measurements, each published only when a sampler supplies one. */
  readonly maxNumCtx?: number | null;
  readonly ollamaSlots?: number | null;
  readonly gpuPressure?: number | null;
  readonly containers?: ContainerRollup | null;
  /** Which of this node's engines withhold which models now; nothing is withheld when absent. */
  readonly unservable?: LocalUnservable;
  /** This node's throughput bands per model; null when nothing has been timed. */
  readonly throughput?: ThroughputAdvert | null;
}

/** The document this Hub publishes. Not taking work: the real load, an empty inventory, acceptingWork false. */
export function publishCapabilities(input: PublishInputs): CapabilitiesDocument {
  const unservable = input.unservable ?? NOTHING_WITHHELD;
  const unservableModels = unservableEverywhere(input.backends, unservable);
  return {
    nodeUuid: input.nodeUuid,
    ...present('publicKey', input.publicKey),
    // Not detected (yet, or at all) reads null: a tier is never guessed.
    hardwareTier: input.hardwareTier ?? null,
    backends: input.acceptingWork ? input.backends.filter((b) => b.healthy).map((b) => publishedEngine(b, unservable)) : [],
    inFlightRequests: input.inFlightRequests,
    acceptingWork: input.acceptingWork,
    // Container counts are a health signal rather than an offer of work, so they are sent
    // whether or not this node takes work; every optional key is present only when measured.
    ...present('maxPromptTokens', input.maxPromptTokens),
    ...present('maxNumCtx', input.maxNumCtx),
    ...present('ollamaSlots', input.ollamaSlots),
    ...present('gpuPressure', input.gpuPressure),
    ...present('containers', input.containers),
    ...(unservableModels.length > 0 ? { unservableModels } : {}),
    ...(input.acceptingWork ? { modelDetails: modelDetailsOf(input.backends) } : {}),
    ...present('throughput', input.throughput),
  };
}

const NOTHING_WITHHELD: LocalUnservable = () => false;

function publishedEngine(b: BackendView, unservable: LocalUnservable): PublishedEngine {
  const models = b.models.map((m) => m.name);
  const withheld = models.filter((name) => unservable(b, name));
  return withheld.length > 0 ? { kind: b.kind, models, unservable: withheld } : { kind: b.kind, models };
}

/**
 * Models this node lists but cannot serve now: withheld on every healthy engine that lists
 * them. A model one engine fails while another serves it is still servable here.
 */
function unservableEverywhere(backends: readonly BackendView[], unservable: LocalUnservable): string[] {
  const models = new Map<string, boolean>();
  for (const b of backends) {
    if (!b.healthy) continue;
    for (const m of b.models) models.set(m.name, (models.get(m.name) ?? true) && unservable(b, m.name));
  }
  return [...models]
    .filter(([, all]) => all)
    .map(([name]) => name)
    .sort();
}

/** The facts this node's healthy engines give about their models; models no engine describes are left out. */
function modelDetailsOf(backends: readonly BackendView[]): Record<string, ModelDetail> {
  // Gathered in a Map: in a plain object a model named `constructor` found Object.prototype's
  // member and went undescribed, and one named `__proto__` replaced the object's prototype.
  const out = new Map<string, ModelDetail>();
  for (const b of backends) {
    if (!b.healthy) continue;
    for (const m of b.models) {
      if (out.has(m.name) || (m.parameterSize === null && m.capabilities === null && m.remote !== true)) continue;
      const detail: ModelDetail = { parameterSize: m.parameterSize, capabilities: m.capabilities === null ? null : [...m.capabilities] };
      out.set(m.name, m.remote === true ? { ...detail, remote: true } : detail);
    }
  }
  return Object.fromEntries(out);
}

/** A peer's modelDetails: bounded, each entry checked; anything malformed reads as no detail (null). */
export function readModelDetails(value: unknown): ReadonlyMap<string, ModelDetail> | null {
  if (!isPlainObject(value)) return null;
  const entries = Object.entries(value);
  if (entries.length > MAX_PEER_MODELS_PER_ENGINE) return null;
  const out = new Map<string, ModelDetail>();
  for (const [name, raw] of entries) {
    if (!isReadableModelName(name) || !isPlainObject(raw)) continue;
    const size = raw.parameterSize;
    const caps = raw.capabilities;
    const parameterSize = typeof size === 'string' && size.length <= MAX_DETAIL_TEXT ? size : null;
    const capabilities =
      Array.isArray(caps) && caps.length <= MAX_DETAIL_CAPABILITIES && caps.every((c) => typeof c === 'string' && c.length <= MAX_DETAIL_TEXT)
        ? (caps as string[])
        : null;
    out.set(name, raw.remote === true ? { parameterSize, capabilities, remote: true } : { parameterSize, capabilities });
  }
  return out;
}

/** `{ [key]: value }` when there is a value, `{}` otherwise, so the key is absent rather than null. */
function present<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === null || value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

export function readCapabilities(json: unknown): PeerCapabilities | null {
  if (!isPlainObject(json)) return null;
  const doc = json;
  return {
    // Held as long as the snapshot is: anything but a UUID (of any length the body allows) is none.
    nodeUuid: typeof doc.nodeUuid === 'string' && NODE_UUID_PATTERN.test(doc.nodeUuid) ? doc.nodeUuid : null,
    hardwareTier: isHardwareTier(doc.hardwareTier) ? doc.hardwareTier : null,
    ...readBackends(doc.backends),
    inFlightRequests: integerIn(doc.inFlightRequests, 0, 1_000_000),
    acceptingWork: doc.acceptingWork === true,
    gpuPressure: integerIn(doc.gpuPressure, GPU_PRESSURE_RANGE.min, GPU_PRESSURE_RANGE.max),
    maxPromptTokens: integerIn(doc.maxPromptTokens, PROMPT_CEILING_RANGE.min, PROMPT_CEILING_RANGE.max),
    maxNumCtx: integerIn(doc.maxNumCtx, 1, MAX_NUM_CTX),
    ollamaSlots: integerIn(doc.ollamaSlots, OLLAMA_SLOTS_RANGE.min, OLLAMA_SLOTS_RANGE.max),
    containers: readContainers(doc.containers),
    unservableModels: readUnservableModels(doc.unservableModels),
    modelDetails: readModelDetails(doc.modelDetails),
    throughput: readThroughputAdvert(doc.throughput),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is an integer in [min, max]; null for anything else (a string "3" included). */
function integerIn(value: unknown, min: number, max: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : null;
}

/**
 * Engines and their models, skipping any malformed entry or name and bounding both counts, and
 * the same engines less what each names unservable. A name counts as unservable only when that
 * engine's own kept list holds it, so the list adds no names and no bound of its own.
 */
function readBackends(value: unknown): Pick<PeerCapabilities, 'backends' | 'servable'> {
  if (!Array.isArray(value)) return { backends: [], servable: [] };
  const backends: ListedEngine[] = [];
  const servable: ListedEngine[] = [];
  let withheldAny = false;
  let total = 0;
  for (const entry of value.slice(0, MAX_PEER_BACKENDS)) {
    // An engine whose kind is not readable is dropped with its models: its kind would reach
    // every screen that lists the peer's engines, escapes included.
    const kind = isPlainObject(entry) ? readableEngineKind(entry.kind) : null;
    if (!isPlainObject(entry) || kind === null || !Array.isArray(entry.models)) continue;
    const models: string[] = [];
    for (const m of entry.models) {
      if (models.length >= MAX_PEER_MODELS_PER_ENGINE || total >= MAX_PEER_MODELS_TOTAL) break;
      if (isReadableModelName(m)) {
        models.push(m);
        total += 1;
      }
    }
    backends.push({ kind, models });
    const withheld = Array.isArray(entry.unservable) ? new Set<unknown>(entry.unservable.slice(0, models.length)) : null;
    const serves = withheld !== null && models.some((m) => withheld.has(m)) ? models.filter((m) => !withheld.has(m)) : models;
    withheldAny ||= serves !== models;
    servable.push({ kind, models: serves });
  }
  return { backends, servable: withheldAny ? servable : backends };
}

/**
 * The container rollup, or null. It is all or nothing: a rollup with one impossible figure
 * (negative, fractional count, more running than exist, totals that do not add up, CPU or
 * memory in use with nothing running) is not trusted in any of its figures, because a
 * half-kept rollup would read as measured.
 */
function readContainers(value: unknown): ContainerRollup | null {
  if (!isPlainObject(value)) return null;
  // No Hub counts more than it reads from one Docker list: a larger count is absurd, not large.
  const running = integerIn(value.running, 0, MAX_CONTAINERS);
  const stopped = integerIn(value.stopped, 0, MAX_CONTAINERS);
  const total = integerIn(value.total, 0, MAX_CONTAINERS);
  const cpuPercent = finiteIn(value.cpuPercent, 0, MAX_CONTAINER_CPU_PERCENT);
  const memoryBytes = finiteIn(value.memoryBytes, 0, MAX_CONTAINER_MEMORY_BYTES);
  if (running === null || stopped === null || total === null || cpuPercent === null || memoryBytes === null) return null;
  if (running > total || stopped !== total - running) return null;
  // CPU and memory are summed over running containers only (containers/container-sampler.ts):
  // with none running, any use is a contradiction, and zeroing it would make up a measurement.
  if (running === 0 && (cpuPercent > 0 || memoryBytes > 0)) return null;
  return { running, stopped, total, cpuPercent, memoryBytes };
}

function finiteIn(value: unknown, min: number, max: number): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : null;
}

/** The list when every entry is a plausible model name and there are not too many; otherwise null. */
function readUnservableModels(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > MAX_UNSERVABLE_MODELS) return null;
  return value.every(isReadableModelName) ? [...value] : null;
}
