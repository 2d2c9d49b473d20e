/**
 * This node's two statements about its engine, over the routes the spec names beside the pool
 * settings PATCH: the slot count ("Slot-aware placement") and the context cap ("Context caps").
 * PATCH /api/user-settings takes them under their setting names, inferenceOllamaSlots and
 * inferenceMaxNumCtx; PATCH /api/inference/preferences takes them as ollamaSlots and maxNumCtx,
 * each a number or null (the spec's way to clear them: it names preferences as the route that can,
 * so user-settings refuses null and says where to go). Both write the one stored setting each,
 * through its rule in config/settings-schema.ts, so placement, status and GET /capabilities read
 * what they wrote. A body is applied whole or not at all, and a refusal names the field as the
 * caller sent it, never the setting behind it.
 */
import { echoName, echoValue } from '../util/echo.js';
import type { FastifyInstance } from 'fastify';
import { HubError } from '../errors.js';
import { describeRule, SETTING_RULES, valueFits, type Rule, type SettingsPatch } from '../config/settings-schema.js';
import type { HubServices } from './services.js';

type StatementSetting = 'inferenceOllamaSlots' | 'inferenceMaxNumCtx';

/** Each route's field names, mapped to the setting each writes, and whether it may clear one with null. */
interface FieldMap {
  readonly fields: Readonly<Record<string, StatementSetting>>;
  /** null when null clears; otherwise where to clear instead. */
  readonly clearElsewhere: string | null;
}

const USER_SETTINGS_FIELDS: FieldMap = {
  fields: { inferenceOllamaSlots: 'inferenceOllamaSlots', inferenceMaxNumCtx: 'inferenceMaxNumCtx' },
  clearElsewhere: 'PATCH /api/inference/preferences',
};
const PREFERENCES_FIELDS: FieldMap = { fields: { ollamaSlots: 'inferenceOllamaSlots', maxNumCtx: 'inferenceMaxNumCtx' }, clearElsewhere: null };

/**
 * The settings patch a body asks for, or a refusal naming every field at fault in the route's own
 * words. Pure. An empty body is refused as naming nothing, not read as a field that is undefined.
 */
export function statementPatch(route: FieldMap, raw: unknown): SettingsPatch {
  const { fields } = route;
  const body = raw ?? {};
  const known = Object.keys(fields).join(' or ');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const message = `the body must be a JSON object naming ${known}`;
    // With a fields list like every other refusal here, and the settings PATCH's: one client reads them all alike.
    throw new HubError('HUB_ERR_SETTINGS_INVALID', message, { details: { fields: [{ field: '(body)', message }] } });
  }
  const problems: { field: string; message: string }[] = [];
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    const setting = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (setting === undefined) {
      const name = echoName(field);
      problems.push({ field: name, message: `${name} is not taken here (this route takes ${known})` });
    } else if (!valueFits(ruleOn(route, setting), value)) {
      const clear =
        value === null && route.clearElsewhere !== null ? ` (to clear it, send ${route.clearElsewhere} with ${preferencesField(setting)}: null)` : '';
      problems.push({ field, message: `${field} must be ${describeRule(ruleOn(route, setting))}; got ${echoValue(value)}${clear}` });
    } else {
      patch[setting] = value;
    }
  }
  if (problems.length === 0 && Object.keys(patch).length === 0) problems.push({ field: '(body)', message: `the body names nothing to change: send ${known}` });
  if (problems.length > 0) throw new HubError('HUB_ERR_SETTINGS_INVALID', problems.map((p) => p.message).join('; '), { details: { fields: problems } });
  return patch as SettingsPatch;
}

/** The field PATCH /api/inference/preferences writes a setting through. */
function preferencesField(setting: StatementSetting): string {
  return Object.keys(PREFERENCES_FIELDS.fields).find((field) => PREFERENCES_FIELDS.fields[field] === setting) ?? setting;
}

/** The setting's rule as this route takes it: without null where the route cannot clear. */
function ruleOn(route: FieldMap, setting: StatementSetting): Rule {
  const rule = SETTING_RULES[setting];
  if (route.clearElsewhere === null || rule.kind !== 'integer') return rule;
  const { nullable: _nullable, ...notNull } = rule;
  return notNull;
}

export function registerSlotStatementRoutes(app: FastifyInstance, s: HubServices): void {
  const operator = { config: { access: 'operator' as const } };
  const write = (fields: FieldMap, body: unknown) => {
    const patch = statementPatch(fields, body);
    const after = s.settings.patch(patch);
    s.logger.info(Object.fromEntries(Object.keys(patch).map((k) => [k, after[k as StatementSetting]])), 'node statement changed (slots or context cap)');
    return after;
  };
  app.patch('/api/user-settings', operator, async (request) => {
    const after = write(USER_SETTINGS_FIELDS, request.body);
    return { inferenceOllamaSlots: after.inferenceOllamaSlots, inferenceMaxNumCtx: after.inferenceMaxNumCtx };
  });
  app.patch('/api/inference/preferences', operator, async (request) => {
    const after = write(PREFERENCES_FIELDS, request.body);
    return { ollamaSlots: after.inferenceOllamaSlots, maxNumCtx: after.inferenceMaxNumCtx };
  });
}
