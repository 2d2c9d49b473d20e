/**
 * The routes a Hub answers without placing a request: the model listings (this node's
 * engines plus every usable peer's cached models; no extra network call for the peers),
 * /api/ps and /api/version (questions about this machine, so never another node's answer),
 * and /api/show (this node's Ollamas asked at once, the first in order that holds the model
 * answering, else a peer that holds it). Each reads the engines' health snapshot, never a live
 * probe (issue 10 audit: at the default TTL a port held silently cost every listing the probe's
 * whole 5 s transport timeout).
 */
import type { ServerResponse } from 'node:http';
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import type { BackendHealth } from '../engines/health-snapshot.js';
import { listLocal } from '../engines/local-listing.js';
import type { BackendView } from '../engines/types.js';
import { ADAPTERS } from '../engines/adapters.js';
import { backendHolds, canonicalModelName, MAX_MODEL_NAME_LENGTH } from '../engines/model-name.js';
import { ENGINE_KINDS, type EngineKind } from '../engines/engine-kind.js';
import { relayableEntries } from '../engines/engine-answers.js';
import { describeTransportError, ENGINE_SHOW_MAX_BYTES, ENGINE_VERSION_MAX_BYTES, PROBE_TRANSPORT_TIMEOUT_MS } from '../engines/probe-fetch.js';
import { askEngineShow } from './engine-show.js';
import { discardBody, readBounded } from '../util/bounded-read.js';
import { HubError } from '../errors.js';
import { parseRequestJson } from '../util/request-json.js';
import { AUTO_MODEL } from './auto-alias.js';
import { localBackendsReport } from './local-backends-report.js';
import type { PoolAccess, PoolProxy } from './pool-proxy.js';
import { peerModels } from './pool-offers.js';
import { listedFacts } from './peer-listing-facts.js';
import { PROXY_PREFIX } from './route-table.js';
import { NOTHING_UNSERVABLE, type LocalUnservable, type UsablePeer } from '../placement/candidates.js';
import { writeProxyError } from './proxy-errors.js';
import type { Logger } from 'pino';

/**
 * modified_at of a model only peers hold: the zero time, as Ollama's Go types write a time they
 * do not have. An empty string is no timestamp, and typed clients refuse the whole listing over
 * it: `ollama list` (ListModelResponse.ModifiedAt is a time.Time) and ollama-python's pydantic
 * model both fail to parse "" (protocols.md 2.7: modified_at is an RFC 3339 timestamp).
 */
const UNKNOWN_MODIFIED_AT = '0001-01-01T00:00:00Z';

/** A peer gets 15 s from the dial to send an /api/show lookup's response headers: engines answer it in under 0.3 s. */
export const PEER_SHOW_HEADERS_TIMEOUT_MS = 15_000;
/**
 * Once its headers are in, the peer's description gets this long to arrive, on a bound of its own:
 * the spec's 15 s counts to the headers only, and one deadline over both cut off a peer that sent
 * its headers at 14 s and its body after the 15th (audit).
 */
export const PEER_SHOW_BODY_TIMEOUT_MS = 15_000;

export interface LocalRoutesDeps {
  readonly pool: PoolAccess;
  readonly health: BackendHealth;
  readonly dispatcher: Dispatcher;
  readonly proxy: PoolProxy;
  readonly logger: Logger;
  /** Which local engines withhold which models as unservable: their entries are left out of the listings, as candidates leave them out. */
  readonly unservable: LocalUnservable;
  /** PEER_SHOW_HEADERS_TIMEOUT_MS when absent; tests shorten it, so a deadline is met in seconds rather than fifteen. */
  readonly peerShowHeadersTimeoutMs?: number;
  /** PEER_SHOW_BODY_TIMEOUT_MS when absent; tests shorten it too. */
  readonly peerShowBodyTimeoutMs?: number;
}

/**
 * What a local route's 502 says, so it points where to look. Native routes are answered by
 * Ollama engines only (the Hub does not translate dialects), so "no engine answered" misled on a
 * Hub whose vLLM or Lemonade answered; and /api/ps and /api/version never ask peers, so saying
 * no peer had models was false in a pool whose peers held many.
 */
const NOTHING_LISTED = {
  openai: 'No engine on this Hub answered, and no peer has models to offer.',
  ollama: "No Ollama engine on this Hub answered, and no peer has a model for Ollama's API to offer.",
} as const;

function machineOnly(path: '/api/ps' | '/api/version'): string {
  return `No Ollama engine on this Hub answered. ${path} reports on this machine's own Ollama, so it is never asked of a peer.`;
}

/** One model card of the OpenAI listing and the kind of local engine that listed it (null: only peers offer it). */
interface ListedCard {
  readonly card: Readonly<Record<string, unknown>> & { readonly id: string };
  readonly kind: EngineKind | null;
}

export class LocalRoutes {
  readonly #deps: LocalRoutesDeps;
  constructor(deps: LocalRoutesDeps) {
    this.#deps = deps;
  }

  /**
   * GET /v1/models: every healthy engine's model list merged by id, then peer-only models marked
   * owned_by hub-pool. An engine's entry for a model it withholds is left out: a listed model is
   * one the ranker can place, and a peer that serves it still puts it back as a peer model.
   */
  async openAIModels(res: ServerResponse): Promise<void> {
    const { views, listing } = await this.#openAIListing();
    if (listing === null) return this.#nothingToList(res, 'openai', views, NOTHING_LISTED.openai);
    sendJson(res, 200, { object: 'list', data: listing.map((l) => l.card) });
  }

  /**
   * GET /v1/models/{model} (openai.models.retrieve): the card GET /v1/models lists for it, so the
   * two never disagree about what the pool holds, peers' models included; else a 404 naming it.
   * A tagless name finds an Ollama's `:latest` entry, here or on a peer, as a chat naming it is placed there.
   */
  async openAIModel(requested: string, res: ServerResponse): Promise<void> {
    if (requested === '')
      throw new HubError('HUB_ERR_NOT_FOUND', 'GET /v1/models/ names no model: put the model id after the slash, or drop the slash to list them all.');
    // No listing holds a longer id (they are bounded like a request's model), and echoing a URL-sized one helps nobody.
    if (requested.length > MAX_MODEL_NAME_LENGTH)
      throw new HubError(
        'HUB_ERR_NOT_FOUND',
        `The model id asked for is ${requested.length} characters long; no model the pool lists has one over ${MAX_MODEL_NAME_LENGTH}.`,
      );
    const { views, peers, listing } = await this.#openAIListing();
    if (listing === null) return this.#nothingToList(res, 'openai', views, NOTHING_LISTED.openai);
    // Only Ollama reads a tagless name as its :latest; a peer-only card's engine is looked up only for that one id.
    const latest = canonicalModelName('ollama', requested);
    const found =
      listing.find((l) => l.card.id === requested) ??
      (latest === requested ? undefined : listing.find((l) => l.card.id === latest && (l.kind ?? peerKindListing(peers, latest)) === 'ollama'));
    if (found === undefined)
      throw new HubError(
        'HUB_ERR_NOT_FOUND',
        `The model "${requested}" is not in the pool's listing: GET /v1/models names every model this Hub and its peers offer.`,
      );
    sendJson(res, 200, found.card);
  }

  /**
   * The merged OpenAI listing, each card with the kind of local engine that listed it; null when
   * nothing answered and no peer offers anything.
   */
  async #openAIListing(): Promise<{ views: readonly BackendView[]; peers: readonly UsablePeer[]; listing: ListedCard[] | null }> {
    const views = await this.#deps.health.snapshot();
    const healthy = views.filter((v) => v.healthy);
    const { answers, leftOut } = await listLocal(healthy, (b) => ADAPTERS[b.kind].upstreamPath('/v1/models') ?? '/v1/models', this.#deps.dispatcher);
    this.#logLeftOut(leftOut, '/v1/models');
    const seen = new Set<string>();
    const listing: ListedCard[] = [];
    for (const { backend, body } of answers) {
      for (const entry of relayableEntries(body, 'data', 'id')) {
        const id = entry.id;
        if (seen.has(id) || this.#deps.unservable(backend, id)) continue;
        seen.add(id);
        listing.push({ card: entry, kind: backend.kind });
      }
    }
    const peers = this.#deps.pool.usablePeers();
    for (const name of peerOnly(peerModels(peers, 'openai'), seen))
      listing.push({ card: { id: name, object: 'model', created: 0, owned_by: 'hub-pool' }, kind: null });
    return { views, peers, listing: listing.length === 0 && answers.length === 0 ? null : listing };
  }

  /**
   * GET /api/tags: every healthy Ollama's tags merged by name (less what each withholds, as for
   * /v1/models), then peers' native-servable models with the parameter size and capabilities
   * their holders published (peer-listing-facts.ts) and every other fact empty or zero, never
   * invented.
   */
  async ollamaTags(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.snapshot();
    const { models, answered } = await this.#mergeOllama(views, '/api/tags', this.#deps.unservable);
    const seen = new Set(models.map((m) => (m as { name: string }).name));
    const peers = this.#deps.pool.usablePeers();
    const held = peerModels(peers, 'ollama');
    const fromPeers = [...peerOnly(held, seen)].map((name) => {
      const facts = listedFacts(peers.filter((p) => held.get(p.name)?.has(name)).map((p) => ({ peer: p.name, detail: p.modelDetails.get(name) })));
      return {
        name,
        model: name,
        modified_at: UNKNOWN_MODIFIED_AT,
        size: 0,
        digest: '',
        details: { parent_model: '', format: '', family: '', families: [], parameter_size: facts.parameterSize, quantization_level: '' },
        ...(facts.capabilities === null ? {} : { capabilities: [...facts.capabilities] }),
      };
    });
    // The snapshot can call an engine healthy that has since stopped answering: what answered now decides.
    if (models.length === 0 && fromPeers.length === 0 && answered === 0) return this.#nothingToList(res, 'ollama', views, NOTHING_LISTED.ollama);
    sendJson(res, 200, { models: [...models, ...fromPeers] });
  }

  /** GET /api/ps: what this machine's Ollama engines hold in memory. */
  async ollamaPs(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.snapshot();
    // What sits in memory is a fact about the machine, withheld or not.
    const { models, answered } = await this.#mergeOllama(views, '/api/ps', NOTHING_UNSERVABLE);
    if (answered === 0) return this.#nothingToList(res, 'ollama', views, machineOnly('/api/ps'));
    sendJson(res, 200, { models });
  }

  /** GET /api/version: this machine's first healthy Ollama answers for itself. */
  async ollamaVersion(res: ServerResponse): Promise<void> {
    const views = await this.#deps.health.snapshot();
    const ollama = views.find((v) => v.healthy && v.kind === 'ollama');
    if (!ollama) return this.#nothingToList(res, 'ollama', views, machineOnly('/api/version'));
    const failed = await this.#relayVersion(res, ollama);
    if (failed !== null) writeProxyError(res, 'ollama', 502, 'HUB_ERR_ALL_CANDIDATES_FAILED', failed);
  }

  /**
   * POST /api/show: described by a local Ollama that holds the model now, else by a usable peer
   * that does; auto resolves as for a chat. The snapshot only orders the local engines: it can be
   * its TTL old, and a model pulled or removed since must be described, or looked for on the
   * peers, at once (audit: `ollama pull` then `ollama run` met a 502 for ~11 s).
   */
  async ollamaShow(raw: Buffer, res: ServerResponse): Promise<void> {
    await this.#show(raw, res, true);
  }

  /** POST /local/api/show for a peer: this node's own engines only (a peer never relays). */
  async ollamaShowLocal(raw: Buffer, res: ServerResponse): Promise<void> {
    await this.#show(raw, res, false);
  }

  async #show(raw: Buffer, res: ServerResponse, askPeers: boolean): Promise<void> {
    const body = parseShowBody(raw);
    const named = typeof body.model === 'string' ? body.model : typeof body.name === 'string' ? body.name : null;
    if (named === null || named === '') throw new HubError('HUB_ERR_MODEL_REQUIRED', 'the /api/show body names no model: add a "model" field');
    // As for a routed request: no listing holds a longer name, and the 502 would repeat all of it.
    if (named.length > MAX_MODEL_NAME_LENGTH)
      throw new HubError('HUB_ERR_BAD_REQUEST', `model must be at most ${MAX_MODEL_NAME_LENGTH} characters; got ${named.length}`);
    const views = await this.#deps.health.snapshot();
    const peers = askPeers ? this.#deps.pool.usablePeers() : [];
    const model = named === AUTO_MODEL ? this.#deps.proxy.resolveAutoModel(views, 'ollama', res, peers) : named;
    if (model === null) return;
    const forward = Buffer.from(JSON.stringify({ ...body, model }));
    // An engine that does not answer may still hold the model: the 502 names it unless a peer describes it.
    const localFailures: string[] = [];
    // Ends every ask still under way: the app hung up (nobody is left to read a description), or
    // the lookup has its answer (the others' descriptions, up to 32 MiB each, are not read on).
    const lookup = new AbortController();
    const onAppGone = () => lookup.abort();
    res.once('close', onAppGone);
    try {
      // All asked at once, each under its own bound: asked in turn, an engine that held its answer
      // to the bound made every engine after it wait that long too. The answer is the first in the
      // ask order that describes the model, whichever answered first, so it does not depend on timing.
      const asks = showAskOrder(views, model).map((engine) => askEngineShow(this.#deps.dispatcher, engine, forward, lookup.signal));
      for (const ask of asks) {
        const outcome = await ask;
        if (res.destroyed) return;
        if (outcome.kind === 'answer') return sendBytes(res, outcome.status, outcome.contentType, outcome.bytes);
        if (outcome.kind === 'failed') localFailures.push(outcome.why);
      }
    } finally {
      res.off('close', onAppGone);
      lookup.abort();
    }
    for (const peer of this.#deps.proxy.showOrder(model, peers)) {
      if (res.destroyed) return;
      if (await this.#relayPeerShow(res, peer, forward)) return;
    }
    if (localFailures.length > 0) return writeProxyError(res, 'ollama', 502, 'HUB_ERR_ALL_CANDIDATES_FAILED', localFailures.join('; '));
    writeProxyError(res, 'ollama', 502, 'HUB_ERR_NO_CANDIDATE', `No pool node currently has model "${model}" available.`, {
      localBackends: localBackendsReport(views),
    });
  }

  /** Asks one peer to describe the model; true when its answer was relayed. Opens no routing-log row. */
  async #relayPeerShow(res: ServerResponse, peer: UsablePeer, body: Buffer): Promise<boolean> {
    const path = `${PROXY_PREFIX}/local/api/show`;
    const auth = await this.#deps.pool.peerAuth(peer.peerId, 'POST', path, body);
    if (typeof auth === 'string') return false;
    // The headers' deadline counts from the dial: headersTimeout starts only once connected, and a
    // peer slow to connect added the dispatcher's connect timeout on top. The body is read under
    // its own bound once they are in. The app hanging up ends either.
    const headersTimeoutMs = this.#deps.peerShowHeadersTimeoutMs ?? PEER_SHOW_HEADERS_TIMEOUT_MS;
    const ask = new AbortController();
    const headersDeadline = setTimeout(() => ask.abort(new Error(`no response headers within ${headersTimeoutMs} ms`)), headersTimeoutMs);
    const onAppGone = () => ask.abort(new Error('the app closed its connection'));
    res.once('close', onAppGone);
    try {
      const answer = await request(`${peer.origin}${path}`, {
        method: 'POST',
        dispatcher: this.#deps.dispatcher,
        headers: { 'content-type': 'application/json', ...auth },
        body,
        signal: ask.signal,
      });
      clearTimeout(headersDeadline);
      // A peer on a build without the route answers 404; another peer may still describe it.
      if (answer.statusCode !== 200) {
        discardBody(answer.body);
        return false;
      }
      const bytes = await readBounded(
        answer.body,
        { maxBytes: ENGINE_SHOW_MAX_BYTES, timeoutMs: this.#deps.peerShowBodyTimeoutMs ?? PEER_SHOW_BODY_TIMEOUT_MS },
        answer.headers['content-length'],
      );
      sendBytes(res, 200, String(answer.headers['content-type'] ?? 'application/json'), bytes);
      return true;
    } catch (err) {
      // An app that hung up is no fault of the peer's, and nothing is left to ask for.
      if (res.destroyed) this.#deps.logger.debug({ peer: peer.name }, 'the app closed its connection while a peer was describing the model');
      else this.#deps.logger.debug({ peer: peer.name, error: describeTransportError(err) }, 'a peer did not describe the model in time');
      return false;
    } finally {
      clearTimeout(headersDeadline);
      res.off('close', onAppGone);
    }
  }

  /** Every healthy Ollama's answer merged by name, less the entries an engine withholds, and how many answered (0: none of them, whatever the snapshot said). */
  async #mergeOllama(
    views: readonly BackendView[],
    path: '/api/tags' | '/api/ps',
    unservable: LocalUnservable,
  ): Promise<{ models: unknown[]; answered: number }> {
    const ollamas = views.filter((v) => v.healthy && v.kind === 'ollama');
    const { answers, leftOut } = await listLocal(ollamas, () => path, this.#deps.dispatcher);
    this.#logLeftOut(leftOut, path);
    const seen = new Set<string>();
    const models: unknown[] = [];
    for (const { backend, body } of answers) {
      for (const entry of relayableEntries(body, 'models', 'name')) {
        const name = entry.name;
        if (seen.has(name) || unservable(backend, name)) continue;
        seen.add(name);
        models.push(entry);
      }
    }
    return { models, answered: answers.length };
  }

  /** Relays this machine's Ollama's version; null when relayed, else why it could not be (nothing written). */
  async #relayVersion(res: ServerResponse, backend: BackendView): Promise<string | null> {
    try {
      const answer = await request(`${backend.url}/api/version`, {
        method: 'GET',
        dispatcher: this.#deps.dispatcher,
        headersTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
        bodyTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
      });
      const bytes = await readBounded(
        answer.body,
        { maxBytes: ENGINE_VERSION_MAX_BYTES, timeoutMs: PROBE_TRANSPORT_TIMEOUT_MS },
        answer.headers['content-length'],
      );
      sendBytes(res, answer.statusCode, String(answer.headers['content-type'] ?? 'application/json'), bytes);
      return null;
    } catch (err) {
      return `${backend.backendId} at ${backend.url} did not answer /api/version (${describeTransportError(err)})`;
    }
  }

  #nothingToList(res: ServerResponse, dialect: 'openai' | 'ollama', views: readonly BackendView[], message: string): void {
    writeProxyError(res, dialect, 502, 'HUB_ERR_NO_CANDIDATE', message, {
      localBackends: localBackendsReport(views),
    });
  }

  #logLeftOut(leftOut: readonly BackendView[], path: string): void {
    for (const b of leftOut) this.#deps.logger.debug({ backend: b.backendId, path }, 'left a silent engine out of the listing');
  }
}

/** The models peers offer (peerModels' answer) that no local engine listed, sorted. */
function peerOnly(held: ReadonlyMap<string, ReadonlySet<string>>, seen: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const names of held.values()) for (const n of names) if (!seen.has(n)) out.add(n);
  return new Set([...out].sort());
}

/** The kind of the first engine on a peer that lists the name, so a tagless name reads as that engine reads it. */
function peerKindListing(peers: readonly UsablePeer[], name: string): EngineKind | null {
  for (const peer of peers)
    for (const b of peer.backends) if (b.models.includes(name) && (ENGINE_KINDS as readonly string[]).includes(b.kind)) return b.kind as EngineKind;
  return null;
}

/**
 * The local Ollamas /api/show asks, in the order their answers are taken: those the snapshot
 * says hold the model, then the other healthy ones, any of which may have pulled it since the
 * snapshot was taken.
 */
function showAskOrder(views: readonly BackendView[], model: string): BackendView[] {
  const ollamas = views.filter((v) => v.healthy && v.kind === 'ollama');
  return [...ollamas.filter((v) => backendHolds(v, model)), ...ollamas.filter((v) => !backendHolds(v, model))];
}

function parseShowBody(raw: Buffer): Record<string, unknown> {
  const parsed = raw.length === 0 ? null : parseRequestJson(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new HubError('HUB_ERR_INVALID_JSON', 'the /api/show body must be a JSON object with a model field');
  return parsed as Record<string, unknown>;
}

/** Relays an engine's or a peer's answer as it came. */
function sendBytes(res: ServerResponse, status: number, contentType: string, bytes: Buffer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': bytes.length });
  res.end(bytes);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
