/**
 * Schemas for what the Hub reads from an engine: /api/tags, /v1/models and /api/ps. An engine
 * is untrusted input like any other: one `null` in a model list used to crash the Hub within
 * seconds of boot (issue 9, defect 2). Each list is read entry by entry; an entry the schema
 * cannot read is dropped and the rest are kept, and a field of the wrong type reads as not
 * reported (null), never as zero or empty.
 */
import { z } from 'zod';
import type { ModelInfo } from './types.js';

/** Most models read from one engine listing; the rest are ignored. */
export const MAX_ENGINE_MODELS = 10_000;
/** Longest model name (or id) read; a longer one is dropped with its entry. */
export const MAX_MODEL_NAME_LENGTH = 256;
/** Longest short fact (parameter size, capability, owned_by) read. */
const MAX_FACT_LENGTH = 64;
/** Capabilities read per model. */
const MAX_CAPABILITIES = 32;

/** A list whose unreadable entries are dropped rather than failing the whole list; bounded. */
export function lenientList<T extends z.ZodTypeAny>(entry: T, max: number): z.ZodType<z.output<T>[], z.ZodTypeDef, unknown> {
  return z.array(z.unknown()).transform((entries) => {
    const out: z.output<T>[] = [];
    for (const raw of entries) {
      if (out.length >= max) break;
      const parsed = entry.safeParse(raw);
      if (parsed.success) out.push(parsed.data as z.output<T>);
    }
    return out;
  });
}

/** An optional field: its value when it passes, null (not reported) when missing or unreadable. */
function optional<T extends z.ZodTypeAny>(schema: T): z.ZodType<z.output<T> | null, z.ZodTypeDef, unknown> {
  return schema.nullable().optional().transform((v) => v ?? null).catch(null) as z.ZodType<z.output<T> | null, z.ZodTypeDef, unknown>;
}

const modelName = z.string().min(1).max(MAX_MODEL_NAME_LENGTH);
const fact = z.string().min(1).max(MAX_FACT_LENGTH);

const tagEntry = z
  .object({
    name: optional(modelName),
    model: optional(modelName),
    size: optional(z.number().finite().positive()),
    details: optional(z.object({ parameter_size: optional(fact) })),
    capabilities: optional(lenientList(fact, MAX_CAPABILITIES)),
  })
  .transform((m, ctx): ModelInfo => {
    const name = m.name ?? m.model;
    if (name === null) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'no name' });
      return z.NEVER;
    }
    return { name, parameterSize: m.details?.parameter_size ?? null, capabilities: m.capabilities, sizeBytes: m.size };
  });

const tagsAnswer = z.object({ models: lenientList(tagEntry, MAX_ENGINE_MODELS) });

/** Models from an /api/tags body; null when the body is not in Ollama's shape (no models array). */
export function parseTags(body: unknown): ModelInfo[] | null {
  const parsed = tagsAnswer.safeParse(body);
  return parsed.success ? parsed.data.models : null;
}

const openAIModel = z.object({ id: modelName, owned_by: optional(z.string().max(MAX_FACT_LENGTH)) });
const modelListAnswer = z.object({ data: lenientList(openAIModel, MAX_ENGINE_MODELS) });

/** Models and owned_by values from a /v1/models body; null when it is not a model list. */
export function parseModelList(body: unknown): { models: ModelInfo[]; owners: string[] } | null {
  const parsed = modelListAnswer.safeParse(body);
  if (!parsed.success) return null;
  const models = parsed.data.data.map((m): ModelInfo => ({ name: m.id, parameterSize: null, capabilities: null, sizeBytes: null }));
  const owners = parsed.data.data.flatMap((m) => (m.owned_by === null ? [] : [m.owned_by]));
  return { models, owners };
}

const psEntry = z.object({ name: optional(modelName), model: optional(modelName) }).transform((m, ctx) => {
  const name = m.name ?? m.model;
  if (name === null) {
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

/**
 * The entries of a listing the Hub relays to apps (the engine's own objects, merged across
 * engines): only objects whose `key` field is a readable model name are kept, so a null or a
 * number in the list is dropped instead of reaching the merge.
 */
export function relayableEntries(body: unknown, list: 'models' | 'data', key: 'name' | 'id'): Array<Record<string, unknown> & Record<typeof key, string>> {
  const entry = z.object({ [key]: modelName }).passthrough();
  const parsed = z.object({ [list]: lenientList(entry, MAX_ENGINE_MODELS) }).safeParse(body);
  return parsed.success ? (parsed.data[list] as Array<Record<string, unknown> & Record<typeof key, string>>) : [];
}
