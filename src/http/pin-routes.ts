/**
 * Operator routes for routing pins: list, upsert and remove. Pins live in settings.json, keyed
 * by (scope, model), and take effect on the next pooled request. A pin may name a peer that is
 * not paired (yet, or any more): it is stored and simply matches nothing until that peer is a
 * candidate, which status shows as targetAvailable false. A name no peer can ever have is
 * refused: this Hub's own (pinned as local) and one outside its tailnet (pairing refuses both).
 */
import type { FastifyInstance } from 'fastify';
import type { RoutingPin } from '../config/settings-schema.js';
import { HubError } from '../errors.js';
import { LOCAL_PIN_TARGET } from '../placement/steps/pin.js';
import { MAX_MODEL_NAME_LENGTH } from '../engines/model-name.js';
import { belongsToTailnet, normalizePeerName } from '../tailnet/peer-name.js';
import type { TailnetSelf } from '../tailnet/tailnet-self.js';
import { echoValue } from '../util/echo.js';
import type { HubServices } from './services.js';

const PINS_PATH = '/api/inference/pool/pins';
/** Longest model id a pin may name: the bound every model name the Hub reads is held to. */
export const MAX_PIN_MODEL_LENGTH = MAX_MODEL_NAME_LENGTH;
const BODY_FIELDS: ReadonlySet<string> = new Set(['scope', 'model', 'target']);

export function registerPinRoutes(
  app: FastifyInstance,
  s: Pick<HubServices, 'settings' | 'logger'> & { readonly peers: Pick<HubServices['peers'], 'self'> },
): void {
  const operator = { config: { access: 'operator' as const } };
  const list = () => ({ pins: s.settings.get().poolPins });

  app.get(PINS_PATH, operator, async () => list());

  app.post(PINS_PATH, operator, async (request) => {
    const pin = parsePinRequest(request.body, await s.peers.self());
    s.settings.upsertPin(pin);
    s.logger.info({ scope: pin.scope, model: pin.model, target: pin.target }, 'routing pin set');
    return { pin, ...list() };
  });

  app.delete(PINS_PATH, { config: { ...operator.config, query: ['scope', 'model'], body: 'none' as const } }, async (request) => {
    const { scope, model } = parsePinQuery(request.query);
    if (!s.settings.removePin(scope, model)) {
      throw new HubError(
        'HUB_ERR_NOT_FOUND',
        scope === 'default' ? 'there is no default pin to remove' : `there is no pin for model ${JSON.stringify(model)} to remove`,
      );
    }
    s.logger.info({ scope, model }, 'routing pin removed');
    return list();
  });
}

/** The names a pin's target is checked against: this Hub's own, and its tailnet's suffix (each null when unknown). */
export type PinTargetContext = Pick<TailnetSelf, 'nodeFqdn' | 'tailnetSuffix'>;

/** A POST body as the pin it asks for, or a 400 that names every field at fault. */
export function parsePinRequest(body: unknown, self: PinTargetContext): RoutingPin {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HubError(
      'HUB_ERR_BAD_REQUEST',
      'the body must be a JSON object: { "scope": "model" | "default", "model"?: "<model id>", "target": "local" | "<peer name>" }',
    );
  }
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  const unknown = Object.keys(b).filter((k) => !BODY_FIELDS.has(k));
  if (unknown.length > 0)
    problems.push(`${unknown.join(', ')} ${unknown.length === 1 ? 'is not a pin field' : 'are not pin fields'} (a pin has scope, model and target)`);

  const scope = b.scope === 'model' || b.scope === 'default' ? b.scope : null;
  if (scope === null) problems.push(`scope must be "model" or "default"; got ${describe(b.scope)}`);

  let model: string | null = null;
  if (scope === 'model') {
    const problem = modelProblem(b.model);
    if (problem !== null) problems.push(problem);
    else model = b.model as string;
  } else if (scope === 'default' && b.model !== undefined && b.model !== null) {
    problems.push('model must be left out for the default pin, which applies to every model without its own pin');
  }

  const target = parseTarget(b.target, self);
  if (!target.ok) problems.push(target.reason);

  if (problems.length > 0 || scope === null || !target.ok) throw new HubError('HUB_ERR_BAD_REQUEST', problems.join('; '));
  return { scope, model, target: target.target };
}

/** The DELETE query: ?scope=model&model=<id> or ?scope=default (addressed by query because ids hold / and :). */
export function parsePinQuery(query: unknown): { scope: RoutingPin['scope']; model: string | null } {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  if (q.scope !== 'model' && q.scope !== 'default') {
    throw new HubError('HUB_ERR_QUERY_INVALID', `scope must be given once, as "model" or "default"; got ${describe(q.scope)}`);
  }
  if (q.scope === 'default') {
    if (q.model !== undefined) throw new HubError('HUB_ERR_QUERY_INVALID', 'model must be left out with scope=default; the default pin names no model');
    return { scope: 'default', model: null };
  }
  const problem = modelProblem(q.model);
  if (problem !== null) throw new HubError('HUB_ERR_QUERY_INVALID', problem);
  return { scope: 'model', model: q.model as string };
}

/**
 * Why a model id cannot be pinned, or null. The id is kept verbatim (pins match it exactly),
 * so one with surrounding spaces or control characters is refused rather than cleaned.
 */
function modelProblem(model: unknown): string | null {
  if (typeof model !== 'string' || model.length === 0) return `model must be the exact model id to pin when scope is "model"; got ${describe(model)}`;
  if (model.length > MAX_PIN_MODEL_LENGTH) return `model must be at most ${MAX_PIN_MODEL_LENGTH} characters`;
  if (model.trim() !== model) return 'model must be the exact model id, without spaces around it (pins match model ids exactly)';
  if (/[\u0000-\u001f\u007f]/.test(model)) return 'model must not contain control characters';
  return null;
}

/**
 * 'local' (any case), or a peer's MagicDNS name in its canonical form. A pin at this Hub's own
 * name, or at a name outside its tailnet, would be stored and never match anything, as if its
 * peer were down; it is refused with the pin that says what was meant.
 */
function parseTarget(raw: unknown, self: PinTargetContext): { ok: true; target: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: `target must be "local" or a peer's MagicDNS name; got ${describe(raw)}` };
  if (raw.trim().toLowerCase() === LOCAL_PIN_TARGET) return { ok: true, target: LOCAL_PIN_TARGET };
  const name = normalizePeerName(raw);
  if (!name.ok) return { ok: false, reason: `target must be "local" or a peer's MagicDNS name: ${name.reason}` };
  if (name.name === self.nodeFqdn) return { ok: false, reason: `target ${name.name} is this Hub's own name: pin this Hub as "local"` };
  if (!belongsToTailnet(name.name, self.tailnetSuffix))
    return { ok: false, reason: `target ${name.name} is not a name on this Hub's tailnet (${self.tailnetSuffix}), so no peer can have it` };
  return { ok: true, target: name.name };
}

/** What a refusal says it got: util/echo.ts's quote, and "nothing" for a field left out. */
function describe(value: unknown): string {
  return value === undefined ? 'nothing' : echoValue(value);
}
