/**
 * `cihub pool pin <target> [--model M]` and `cihub pool unpin [--model M]`: routing pins from
 * the command line, as a client of this machine's Hub. With --model the pin is for that exact
 * model id; without it the command sets or removes the default pin. A pin only reorders, so
 * both the question and the answer say so: the operator should never read it as a guarantee.
 */
import type { RoutingPin } from '../../config/settings-schema.js';
import type { PinStatus } from '../../status/pool-status.js';
import { normalizePeerName } from '../../tailnet/peer-name.js';
import { confirm } from '../confirm.js';
import { callHub, CliError, findHub, UsageError } from '../hub-client.js';
import { fetchPoolStatusWithoutCaps } from '../fetch-pool-status.js';

const PINS = '/api/inference/pool/pins';

interface ChangeFlags {
  readonly dataDir: string;
  readonly yes: boolean;
  readonly assumeYes: boolean;
  readonly json: boolean;
}

export interface PinOptions extends ChangeFlags {
  /** 'local' or a peer's MagicDNS name. */
  readonly target: string;
  /** The exact model id to pin; absent sets the default pin. */
  readonly model?: string | undefined;
}

export interface UnpinOptions extends ChangeFlags {
  /** The model whose pin to remove; absent removes the default pin. */
  readonly model?: string | undefined;
}

const json = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;
const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

/** What a pin governs, in words: one model, or every model without its own pin. */
export function pinSubject(model: string | undefined | null): string {
  return model === undefined || model === null ? 'every model without its own pin' : `model ${model}`;
}

/**
 * The target as the Hub will store it ('local' or the canonical peer name). A bad name is
 * refused here, before the confirmation question, so the operator is not asked about a pin
 * the Hub would turn down.
 */
export function normalizePinTarget(raw: string): string {
  if (raw.trim().toLowerCase() === 'local') return 'local';
  const name = normalizePeerName(raw);
  if (!name.ok) throw new UsageError(`The pin target must be "local" or a peer's MagicDNS name (host.tailXXXX.ts.net): ${name.reason}; nothing was changed.`);
  return name.name;
}

/**
 * A scope holds one pin, so setting one replaces the pin already there: both the question and
 * the answer name that target, or the operator loses a pin without being told.
 */
export function pinQuestion(target: string, model: string | undefined, replaces: string | null = null): string {
  const where = target === 'local' ? "this Hub's own engines" : target;
  const replacing = replaces === null || replaces === target ? '' : ` This replaces its pin to ${replaces}.`;
  return `Pin ${pinSubject(model)} to ${where}?${replacing} It will be tried first whenever it can serve the request; the other nodes stay behind it for failover.`;
}

/** The lines after a pin was set, with a warning when its target cannot be preferred right now. */
export function pinDoneLines(pin: RoutingPin, status: PinStatus | undefined, replaced: string | null = null): string[] {
  const lines = [`Pinned ${pinSubject(pin.model)} to ${pin.target}${replaced === null || replaced === pin.target ? '' : ` (it was pinned to ${replaced})`}.`];
  if (status !== undefined && !status.targetAvailable) {
    lines.push(`Note: ${idleTargetReason(pin, status.targetNode)}, so the pin has nothing to prefer until it can; requests route as if unpinned meanwhile.`);
  }
  lines.push('Remove it with: cihub pool unpin' + (pin.model === null ? '' : ` --model ${pin.model}`));
  return lines;
}

/** Why a pin's target has no candidate now, by what status judged it on (status/pool-status.ts pinStatuses). */
function idleTargetReason(pin: RoutingPin, targetNode: string): string {
  if (targetNode === 'local') return pin.model === null ? 'no local engine is healthy right now' : `no healthy local engine here serves ${pin.model} right now`;
  return pin.model === null
    ? `${targetNode} is not a peer this Hub can send work to right now (not paired, unreachable, disabled or not taking work)`
    : `${targetNode} cannot take ${pin.model} right now (not paired, unreachable, disabled, not taking work, or not serving that model)`;
}

export async function pinCommand(opts: PinOptions): Promise<string> {
  const target = normalizePinTarget(opts.target);
  if (opts.model !== undefined && opts.model.length === 0) throw new UsageError('--model needs the exact model id to pin; nothing was changed.');
  const hub = findHub(opts.dataDir);
  const scope = opts.model === undefined ? 'default' : 'model';
  const sameScope = (p: Pick<RoutingPin, 'scope' | 'model'>) => p.scope === scope && (scope === 'default' || p.model === opts.model);
  const before = ((await fetchPoolStatusWithoutCaps(hub)).pins ?? []).find(sameScope)?.target ?? null;
  await confirm(pinQuestion(target, opts.model, before), opts);
  const body = opts.model === undefined ? { scope: 'default', target } : { scope: 'model', model: opts.model, target };
  const answer = await callHub<{ pin: RoutingPin; pins: RoutingPin[] }>(hub, 'POST', PINS, body);
  if (opts.json) return json(answer);
  const status = await fetchPoolStatusWithoutCaps(hub);
  const mine = (status.pins ?? []).find((p) => p.scope === answer.pin.scope && p.model === answer.pin.model);
  return text(pinDoneLines(answer.pin, mine, before));
}

export async function unpinCommand(opts: UnpinOptions): Promise<string> {
  if (opts.model !== undefined && opts.model.length === 0) throw new UsageError('--model needs the exact model id whose pin to remove; nothing was changed.');
  const hub = findHub(opts.dataDir);
  const subject = opts.model === undefined ? 'the default pin' : `the pin for model ${opts.model}`;
  await confirm(
    `Remove ${subject}? Placement then ranks ${pinSubject(opts.model)} by load alone${opts.model === undefined ? '' : ' (or by the default pin, if there is one)'}.`,
    opts,
  );
  const query = new URLSearchParams(opts.model === undefined ? { scope: 'default' } : { scope: 'model', model: opts.model });
  let answer: { pins: RoutingPin[] };
  try {
    answer = await callHub<{ pins: RoutingPin[] }>(hub, 'DELETE', `${PINS}?${query.toString()}`);
  } catch (err) {
    if (err instanceof CliError && err.hub?.status === 404) throw new CliError(`This Hub has no ${subject.replace(/^the /, '')}; nothing was changed.`);
    throw err;
  }
  if (opts.json) return json(answer);
  const left = answer.pins.length;
  return text([
    `Removed ${subject}.`,
    left === 0 ? 'No pins are left: the ranker alone decides.' : `${left} pin${left === 1 ? '' : 's'} left; \`cihub pool status\` lists them.`,
  ]);
}
