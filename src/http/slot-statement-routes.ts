/**
 * The node's slot statement (spec, "Slot-aware placement"): how many requests its Ollama runs at
 * once, as the operator says. The spec names two routes for it besides the pool settings PATCH:
 * PATCH /api/user-settings {"inferenceOllamaSlots": n} and PATCH /api/inference/preferences
 * {"ollamaSlots": n | null} (the one that can clear it). Both write the one stored value,
 * inferenceOllamaSlots, through the same range check as every other setting.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseBody } from './body-schema.js';
import type { HubServices } from './services.js';

const USER_SETTINGS = z.object({ inferenceOllamaSlots: z.unknown() }).strict();
const PREFERENCES = z.object({ ollamaSlots: z.unknown() }).strict();

export function registerSlotStatementRoutes(app: FastifyInstance, s: HubServices): void {
  const operator = { config: { access: 'operator' as const } };
  const write = (value: unknown) => {
    const after = s.settings.patch({ inferenceOllamaSlots: value });
    s.logger.info({ inferenceOllamaSlots: after.inferenceOllamaSlots }, 'ollama slot statement changed');
    return { inferenceOllamaSlots: after.inferenceOllamaSlots };
  };
  app.patch('/api/user-settings', operator, async (request) => write(parseBody(USER_SETTINGS, request.body).inferenceOllamaSlots));
  app.patch('/api/inference/preferences', operator, async (request) => {
    const { ollamaSlots } = parseBody(PREFERENCES, request.body);
    return { ollamaSlots: write(ollamaSlots).inferenceOllamaSlots };
  });
}
