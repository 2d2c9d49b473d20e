/**
 * The part of undici the Hub uses (Agent, request, and the Dispatcher API behind them), loaded
 * without the rest of the package. undici's index also builds fetch, WebSocket, EventSource, the
 * cache API and the mock agents, and that pulls Node's own bundled copy of undici in beside it;
 * the Hub uses none of them. Measured on Node 20 (bench/README.md, "2026-12-02: idle memory"):
 * importing `undici` whole costs a fresh process about 9 MB of RSS and 3 MB of heap more than
 * these files. undici 7 has no `exports` map, so these paths are the package's own files; the
 * test beside this one fails if an undici upgrade moves them, and types come from the package.
 *
 * Everything the Hub runs imports undici from here; tests and benchmarks may import it whole.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

interface UndiciInternals {
  readonly Dispatcher: { prototype: object };
  readonly api: Record<string, unknown>;
  readonly parseURL: (url: string | URL) => URL;
  readonly getGlobalDispatcher: () => Undici.Dispatcher;
}

const internals: UndiciInternals = {
  Dispatcher: require('undici/lib/dispatcher/dispatcher.js') as UndiciInternals['Dispatcher'],
  api: require('undici/lib/api/index.js') as UndiciInternals['api'],
  parseURL: (require('undici/lib/core/util.js') as { parseURL: UndiciInternals['parseURL'] }).parseURL,
  getGlobalDispatcher: (require('undici/lib/global.js') as { getGlobalDispatcher: UndiciInternals['getGlobalDispatcher'] }).getGlobalDispatcher,
};

// What undici's index does first: the request/stream/pipeline methods live on every dispatcher.
Object.assign(internals.Dispatcher.prototype, internals.api);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
/** The instance type, so `Agent` names a type here as it does in undici. */
export type Agent = Undici.Agent;

type RequestOptions = { dispatcher?: Undici.Dispatcher } & Partial<Undici.Dispatcher.RequestOptions>;

/**
 * undici's top-level request(url, options) for the way the Hub calls it: a whole URL (string or
 * URL) and options without `path` (its type has none); the dispatcher is the one given, else
 * undici's global one.
 */
function leanRequest(url: string | URL, options: RequestOptions = {}): Promise<Undici.Dispatcher.ResponseData> {
  const { origin, path } = typeof url === 'string' ? targetOf(url) : splitURL(internals.parseURL(url));
  // The URL's origin and path win over any in the options. The literal starts with its own keys
  // and spreads the rest after them: on Node 20 one that starts with a spread gets a hidden class
  // of its own every time, and undici's reads of it missed their caches on every probe (bench:ic).
  const { dispatcher = internals.getGlobalDispatcher(), method, origin: _origin, path: _path, ...rest } = options;
  return dispatcher.request({ origin, path, method: method ?? (options.body ? 'PUT' : 'GET'), ...rest });
}

interface Target {
  readonly origin: string;
  readonly path: string;
}

function splitURL(parsed: URL): Target {
  return { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
}

/**
 * URL strings already split into origin and path. The proxy asks the same few engine and peer
 * URLs over and over, and building a WHATWG URL for each request was 1.2% of the Hub's busy time
 * in the bench:quick profile (2026-12-02). A string always splits the same way, so this is a pure
 * memo; it is bounded, and emptied when full (peer URLs come from the pool). A URL that does not
 * parse is not kept, and throws as before.
 */
const targets = new Map<string, Target>();
const MAX_TARGETS = 256;

export function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    target = splitURL(internals.parseURL(url));
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

export const request = leanRequest as typeof Undici.request;
