/**
 * Request dispatch for one simulator process: the dialect's route table, the /__sim control
 * routes, and each engine's answer for a path it does not serve.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_PREFIX, handleControl, type SimControl } from './control-routes.js';
import type { RouteHandler, SimCore } from './core.js';
import { HEALTH_ROUTES } from './health-routes.js';
import { Exchange, readBody, sendJson, sendRaw } from './http-io.js';
import { OPENAI_FLAVORS } from './openai-flavors.js';
import { OLLAMA_ROUTES } from './ollama-routes.js';
import { ollamaModelRoute, OPENAI_ROUTES } from './openai-routes.js';
import type { Dialect } from './types.js';

function routeTable(dialect: Dialect): ReadonlyMap<string, RouteHandler> {
  const extra = dialect === 'ollama' ? OLLAMA_ROUTES : HEALTH_ROUTES[dialect];
  return new Map(Object.entries({ ...OPENAI_ROUTES, ...extra }));
}

/** Lemonade serves every route under /api/v1, /v1, /api/v0 and /v0; they all mean /v1 here. */
const LEMONADE_PREFIX = /^\/(?:api\/)?v[01](?=\/|$)/;

function routePath(dialect: Dialect, pathname: string): string {
  return dialect === 'lemonade' ? pathname.replace(LEMONADE_PREFIX, '/v1') : pathname;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Serves the engine port: the dialect's routes plus /__sim. */
export function createEngineHandler(core: SimCore, control: SimControl): RequestListener {
  const routes = routeTable(core.dialect);
  return (req, res) => {
    void serve(core, control, routes, req, res);
  };
}

/** Serves the optional control port: /__sim only. */
export function createControlHandler(control: SimControl): RequestListener {
  return (req, res) => {
    void (async () => {
      const ex = new Exchange(req, res);
      const body = await readBody(req);
      await handleControl(control, ex, req.method ?? 'GET', ex.url.pathname, body);
    })().catch(() => res.destroy());
  };
}

async function serve(core: SimCore, control: SimControl, routes: ReadonlyMap<string, RouteHandler>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // A kept-alive connection opened before `refuse` must not get through either.
  if (core.refusing) return void req.socket.destroy();
  const ex = new Exchange(req, res);
  try {
    const body = await readBody(req);
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const path = ex.url.pathname;
    if (path.startsWith(CONTROL_PREFIX)) return await handleControl(control, ex, req.method ?? 'GET', path, body);
    core.countPath(path);
    const handler = routes.get(`${method} ${routePath(core.dialect, path)}`);
    if (handler !== undefined) return await handler(core, ex, body);
    if (core.dialect === 'ollama' && method === 'GET' && path.startsWith('/v1/models/')) {
      return ollamaModelRoute(core, ex, decodeURIComponent(path.slice('/v1/models/'.length)));
    }
    notFound(core.dialect, ex);
  } catch (err) {
    if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
    else res.destroy();
  }
}

function notFound(dialect: Dialect, ex: Exchange): void {
  switch (dialect) {
    case 'ollama':
      return sendRaw(ex.res, 404, '404 page not found', 'text/plain');
    case 'vllm':
    case 'omlx':
      return sendJson(ex.res, 404, { detail: 'Not Found' }, 'application/json');
    default:
      return sendJson(ex.res, 404, OPENAI_FLAVORS[dialect].errorBody(404, 'File Not Found', 'not_found'));
  }
}
