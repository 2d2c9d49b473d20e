/**
 * Schemas for what the Hub reads from an engine: /api/tags, /v1/models and /api/ps. An engine
 * is untrusted input like any other: one `null` in a model list used to crash the Hub within
 * seconds of boot (issue 9, defect 2). Each list is read entry by entry; an entry the schema
 * cannot read is dropped and the rest are kept, and a field of the wrong type reads as not
 * reported (null), never as zero or empty.
 */
import { z } from 'zod';
import { isReadableModelName } from './model-name.js';
import type { ModelInfo } from './types.js';

/** Most models read from one engine listing; the rest are ignored. */
export const MAX_ENGINE_MODELS = 10_000;
/** Longest short fact (parameter size, capability, owned_by) read. */
const MAX_FACT_LENGTH = 64;
/** Capabilities read per model. */
const MAX_CAPABILITIES = 32;

/**
 * A list whose unreadable entries are dropped rather than failing the whole list; bounded.
 * An entry that is not an object is dropped before the schema sees it: that is the common
 * junk, and a schema failure costs an error object per entry.
 */
export function lenientList<T extends z.ZodTypeAny>(entry: T, max: number): z.ZodType<z.output<T>[], z.ZodTypeDef, unknown> {
  return z.array(z.unknown()).transform((entries) => {
    const out: z.output<T>[] = [];
    for (const raw of entries) {
      if (out.length >= max) break;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) continue;
      const parsed = entry.safeParse(raw);
      if (parsed.success) out.push(parsed.data as z.output<T>);
    }
    return out;
  });
}

/** A field read when it passes and left undefined (not reported) when missing or unreadable. */
const optional = <T extends z.ZodTypeAny>(schema: T) => schema.optional().catch(undefined);

const modelName = z.string().refine(isReadableModelName);
const fact = z.string().min(1).max(MAX_FACT_LENGTH);
/** Short strings out of an array, the rest dropped (Ollama's capabilities). */
const facts = z
  .array(z.unknown())
  .transform((list) => list.filter((c): c is string => typeof c === 'string' && c.length > 0 && c.length <= MAX_FACT_LENGTH).slice(0, MAX_CAPABILITIES));

const tagEntry = z
  .object({
    name: optional(modelName),
    model: optional(modelName),
    size: optional(z.number().finite().positive()),
    details: optional(z.object({ parameter_size: optional(fact) })),
    capabilities: optional(facts),
    remote_host: optional(z.string()),
    remote_model: optional(z.string()),
  })
  .transform((m, ctx): ModelInfo => {
    const name = m.name ?? m.model;
    if (name === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'no name' });
      return z.NEVER;
    }
    const info: ModelInfo = { name, parameterSize: m.details?.parameter_size ?? null, capabilities: m.capabilities ?? null, sizeBytes: m.size ?? null };
    return m.remote_host !== undefined || m.remote_model !== undefined ? { ...info, remote: true } : info;
  });

const tagsAnswer = z.object({ models: lenientList(tagEntry, MAX_ENGINE_MODELS) });

/** Models from an /api/tags body; null when the body is not in Ollama's shape (no models array). */
export function parseTags(body: unknown): ModelInfo[] | null {
  const parsed = tagsAnswer.safeParse(body);
  return parsed.success ? parsed.data.models : null;
}

/**
 * Largest context window read from an engine's listing: 10,000,000 tokens, the bound a peer's
 * stated window is held to (peers/capabilities.ts); a larger figure is no real model's and reads
 * as not stated.
 */
export const MAX_STATED_CONTEXT_TOKENS = 10_000_000;

const openAIModel = z.object({
  id: modelName,
  owned_by: optional(z.string().max(MAX_FACT_LENGTH)),
  // The window the engine runs the model at (spec, "A request no node can serve"): Lemonade's
  // context_length, vLLM's max_model_len (it refuses any prompt past it; protocols.md, 3.8).
  context_length: optional(z.number().int().positive().max(MAX_STATED_CONTEXT_TOKENS)),
  max_model_len: optional(z.number().int().positive().max(MAX_STATED_CONTEXT_TOKENS)),
});
const modelListAnswer = z.object({ data: lenientList(openAIModel, MAX_ENGINE_MODELS) });

/** Models and owned_by values from a /v1/models body; null when it is not a model list. */
export function parseModelList(body: unknown): { models: ModelInfo[]; owners: string[] } | null {
  const parsed = modelListAnswer.safeParse(body);
  if (!parsed.success) return null;
  const models = parsed.data.data.map((m): ModelInfo => ({
    name: m.id,
    parameterSize: null,
    capabilities: null,
    sizeBytes: null,
    contextLength: m.context_length ?? m.max_model_len ?? null,
  }));
  const owners = parsed.data.data.flatMap((m) => (m.owned_by === undefined ? [] : [m.owned_by]));
  return { models, owners };
}

const psEntry = z.object({ name: optional(modelName), model: optional(modelName) }).transform((m, ctx) => {
  const name = m.name ?? m.model;
  if (name === undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'no name' });
    return z.NEVER;
  }
  return name;
});
const psAnswer = z.object({ models: lenientList(psEntry, MAX_ENGINE_MODELS) });

/** Models `/api/ps` lists as loaded; null when the answer is not Ollama's shape. */
export function residentModels(body: unknown): string[] | null {
  const parsed = psAnswer.safeParse(body);
  return parsed.success ? parsed.data.models : null;
}

const lemonadeLoaded = z.object({ model_name: modelName });
const lemonadeHealthAnswer = z.object({ all_models_loaded: lenientList(lemonadeLoaded, MAX_ENGINE_MODELS) });

/** Models Lemonade's `/api/v1/health` lists as loaded (all_models_loaded); null when the answer is not that shape. */
export function lemonadeLoadedModels(body: unknown): string[] | null {
  const parsed = lemonadeHealthAnswer.safeParse(body);
  return parsed.success ? parsed.data.all_models_loaded.map((m) => m.model_name) : null;
}

/**
 * The entries of a listing the Hub relays to apps (the engine's own objects, merged across
 * engines): only objects whose `key` field is a readable model name are kept, so a null or a
 * number in the list is dropped instead of reaching the merge.
 */
export function relayableEntries<K extends 'name' | 'id'>(body: unknown, list: 'models' | 'data', key: K): Array<Record<string, unknown> & Record<K, string>> {
  const parsed = RELAYABLE[list].safeParse(body);
  if (!parsed.success) return [];
  const entries = parsed.data[list as keyof typeof parsed.data] as unknown as Array<Record<string, unknown>>;
  return entries.filter((e): e is Record<string, unknown> & Record<K, string> => modelName.safeParse(e[key]).success).map(withinRelayDepth);
}

/**
 * Deepest nesting relayed inside one listing entry, counting the entry itself: 16 levels. A real
 * Ollama entry is three deep (the entry, details, families). An engine that nested a field
 * 200,000 deep made the merged /api/tags fail to serialise (JSON.stringify ran out of stack) and
 * answer 500, taking every other engine's and peer's models down with it.
 */
export const MAX_RELAYED_ENTRY_DEPTH = 16;

/** The entry as sent when it nests within the bound; otherwise the entry without the fields that nest past it. */
function withinRelayDepth<T extends Record<string, unknown>>(entry: T): T {
  if (nestsWithin(entry, MAX_RELAYED_ENTRY_DEPTH)) return entry;
  return Object.fromEntries(Object.entries(entry).filter(([, v]) => nestsWithin(v, MAX_RELAYED_ENTRY_DEPTH - 1))) as T;
}

/** Whether `value` holds no object or array more than `levels` deep (itself counting as one); stops at the bound. */
function nestsWithin(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (levels === 0) return false;
  for (const inner of Array.isArray(value) ? value : Object.values(value)) if (!nestsWithin(inner, levels - 1)) return false;
  return true;
}

const RELAYABLE = {
  models: z.object({ models: lenientList(z.record(z.unknown()), MAX_ENGINE_MODELS) }),
  data: z.object({ data: lenientList(z.record(z.unknown()), MAX_ENGINE_MODELS) }),
} as const;
