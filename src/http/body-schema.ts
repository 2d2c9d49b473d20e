/**
 * Operator request bodies are parsed by zod schemas, not by hand: one 400 names every field at
 * fault, with the schema's own words, and a handler only ever sees the parsed, typed value.
 */
import type { z } from 'zod';
import { HubError } from '../errors.js';

export function parseBody<S extends z.ZodTypeAny>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data as z.output<S>;
  const problems = result.error.issues.map((i) => i.message);
  throw new HubError('HUB_ERR_BAD_REQUEST', [...new Set(problems)].join('; '));
}
