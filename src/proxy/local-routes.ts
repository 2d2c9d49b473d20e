/**
 * The routes this node answers itself: model listings (this node's engines; peers' cached
 * models join them when pooling lands), /api/ps and /api/version (questions about this
 * machine) and /api/show (described by the local engine that holds the model).
 */
import type { ServerResponse } from 'node:http';
import { request, type Dispatcher } from 'undici';
import type { BackendHealth } from '../engines/health-snapshot.js';
import { listLocal } from '../engines/local-listing.js';
import type { BackendView } from '../engines/types.js';
import { ADAPTERS } from '../engines/adapters.js';
import { backendHolds } from '../engines/model-name.js';
import { describeTransportError, PROBE_TRANSPORT_TIMEOUT_MS } from '../engines/probe-fetch.js';
import { HubError } from '../errors.js';
import { AUTO_MODEL } from './auto-alias.js';
import { localBackendsReport } from './local-backends-report.js';
import type { PoolProxy } from './pool-proxy.js';
import { writeProxyError } from './proxy-errors.js';
import type { Logger } from 'pino';

export interface LocalRoutesDeps {
  readonly health: BackendHealth;
  readonly dispatcher: Dispatcher;
  readonly proxy: PoolProxy;
  readonly logger: Logger;
}

export class LocalRoutes {
  readonly #deps: LocalRoutesDeps;
  constructor(deps: LocalRoutesDeps) {
    this.#deps = deps;
  }

  /** GET /v1/models: every healthy engine's OpenAI model list, merged by id (the first engine's entry wins). */
  async openAIModels(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.read();
    const healthy = views.filter((v) => v.healthy);
    const { answers, leftOut } = await listLocal(healthy, (b) => ADAPTERS[b.kind].upstreamPath('/v1/models') ?? '/v1/models', this.#deps.dispatcher);
    this.#logLeftOut(leftOut, '/v1/models');
    if (answers.length === 0) return this.#nothingToList(res, 'openai', views);
    const seen = new Set<string>();
    const data: unknown[] = [];
    for (const { body } of answers) {
      for (const entry of arrayAt(body, 'data')) {
        const id = (entry as { id?: unknown }).id;
        if (typeof id !== 'string' || seen.has(id)) continue;
        seen.add(id);
        data.push(entry);
      }
    }
    sendJson(res, 200, { object: 'list', data });
  }

  /** GET /api/tags: every healthy Ollama's tags, merged by name. Only Ollama serves the native routes, so only its models are listed here. */
  async ollamaTags(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.read();
    if (!views.some((v) => v.healthy)) return this.#nothingToList(res, 'ollama', views);
    const models = await this.#mergeOllama(views, '/api/tags');
    sendJson(res, 200, { models });
  }

  /** GET /api/ps: what this machine's Ollama engines hold in memory. */
  async ollamaPs(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.read();
    if (!views.some((v) => v.healthy && v.kind === 'ollama')) return this.#nothingToList(res, 'ollama', views);
    sendJson(res, 200, { models: await this.#mergeOllama(views, '/api/ps') });
  }

  /** GET /api/version: this machine's first healthy Ollama answers for itself. */
  async ollamaVersion(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.read();
    const ollama = views.find((v) => v.healthy && v.kind === 'ollama');
    if (!ollama) return this.#nothingToList(res, 'ollama', views);
    await this.#relay(res, ollama, 'GET', '/api/version', undefined);
  }

  /** POST /api/show: described by the local Ollama that holds the model; auto resolves as it does for a chat. */
  async ollamaShow(raw: Buffer, res: ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw.toString('utf8') || 'null');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      throw new HubError('HUB_ERR_INVALID_JSON', 'the /api/show body must be a JSON object with a model field');
    }
    const named = typeof body.model === 'string' ? body.model : typeof body.name === 'string' ? body.name : null;
    if (named === null || named === '') throw new HubError('HUB_ERR_MODEL_REQUIRED', 'the /api/show body names no model: add a "model" field');
    const views = await this.#deps.health.read();
    const model = named === AUTO_MODEL ? this.#deps.proxy.resolveAutoModel(views, 'ollama', res) : named;
    if (model === null) return;
    const holder = views.find((v) => v.healthy && v.kind === 'ollama' && backendHolds(v, model));
    if (!holder) {
      writeProxyError(res, 'ollama', 502, 'HUB_ERR_NO_CANDIDATE', `No pool node currently has model "${model}" available.`, { localBackends: localBackendsReport(views) });
      return;
    }
    await this.#relay(res, holder, 'POST', '/api/show', Buffer.from(JSON.stringify({ ...body, model })));
  }

  async #mergeOllama(views: readonly BackendView[], path: '/api/tags' | '/api/ps'): Promise<unknown[]> {
    const ollamas = views.filter((v) => v.healthy && v.kind === 'ollama');
    const { answers, leftOut } = await listLocal(ollamas, () => path, this.#deps.dispatcher);
    this.#logLeftOut(leftOut, path);
    const seen = new Set<string>();
    const models: unknown[] = [];
    for (const { body } of answers) {
      for (const entry of arrayAt(body, 'models')) {
        const name = (entry as { name?: unknown }).name;
        if (typeof name !== 'string' || seen.has(name)) continue;
        seen.add(name);
        models.push(entry);
      }
    }
    return models;
  }

  async #relay(res: ServerResponse, backend: BackendView, method: 'GET' | 'POST', path: string, body: Buffer | undefined): Promise<void> {
    try {
      const answer = await request(`${backend.url}${path}`, {
        method,
        dispatcher: this.#deps.dispatcher,
        headers: body ? { 'content-type': 'application/json' } : {},
        body,
        headersTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
        bodyTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
      });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json'), 'content-length': bytes.length });
      res.end(bytes);
    } catch (err) {
      writeProxyError(res, 'ollama', 502, 'HUB_ERR_ALL_CANDIDATES_FAILED', `${backend.backendId} at ${backend.url} did not answer ${path} (${describeTransportError(err)})`);
    }
  }

  #nothingToList(res: ServerResponse, dialect: 'openai' | 'ollama', views: readonly BackendView[]): void {
    writeProxyError(res, dialect, 502, 'HUB_ERR_NO_CANDIDATE', 'No engine on this Hub answered, and no peer has models to offer.', { localBackends: localBackendsReport(views) });
  }

  #logLeftOut(leftOut: readonly BackendView[], path: string): void {
    for (const b of leftOut) this.#deps.logger.debug({ backend: b.backendId, path }, 'left a silent engine out of the listing');
  }
}

function arrayAt(body: unknown, key: string): unknown[] {
  const value = (body as Record<string, unknown> | null)?.[key];
  return Array.isArray(value) ? value : [];
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
