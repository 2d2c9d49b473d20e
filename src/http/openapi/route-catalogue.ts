/**
 * What each HTTP route is for, in a few words, keyed by method and Fastify path: the part of the
 * OpenAPI document (openapi-document.ts) the code cannot say itself. Paths, methods, parameters
 * and who may call a route come from the routes as registered; a test holds this table and the
 * registered routes to each other, so neither can gain a route the other lacks.
 */
import { MODEL_MANAGEMENT_PATHS, PROXY_PREFIX, ROUTED_ROUTES } from '../../proxy/route-table.js';
import { settingsPatchSchema, settingsSchema } from './settings-json-schema.js';

/** Who may call a route that declares no `access` of its own (those are read from the route). */
export type OpenAuth =
  /** Anyone who passes the edge checks. */
  | 'none'
  /** An app: admitted by origin (this machine, the tailnet), else an inference key. */
  | 'inference'
  /** Another Hub: a signed request, or the bearer token issued at pairing. */
  | 'peer'
  /** A browser holding the dashboard's session cookie (its own check, in the handler). */
  | 'session';

export interface RouteDoc {
  readonly summary: string;
  /**
   * Groups operations in the document. `operator` is for routes only the operator key may call,
   * `observability` for those a qa:read key may read too; the OpenAPI test holds each route's
   * tag to its declared access.
   */
  readonly tag: 'app proxy' | 'operator' | 'observability' | 'dashboard' | 'peer' | 'supervisor';
  /** Only for a route that declares no `access`. */
  readonly auth?: OpenAuth;
  /** JSON Schema of the request body, where the Hub validates it against rules this can be generated from. */
  readonly body?: Readonly<Record<string, unknown>>;
  /** JSON Schema of a 200 answer, likewise. */
  readonly answer?: Readonly<Record<string, unknown>>;
  /** What a trailing `*` segment holds, named as a path parameter (Fastify gives it no name). */
  readonly wildcard?: string;
}

/** `METHOD path` as Fastify registers it, e.g. `DELETE /api/hub/api-keys/:id`. */
export type RouteKey = string;

const P = PROXY_PREFIX;

const fixed: Record<RouteKey, RouteDoc> = {
  'GET /healthz': { summary: 'liveness: 200 while the process serves HTTP', tag: 'supervisor', auth: 'none' },
  'GET /readyz': { summary: 'readiness: 200 when listening, store open and not draining; 503 with the reasons otherwise', tag: 'supervisor', auth: 'none' },
  'GET /metrics': { summary: 'Prometheus metrics (text format)', tag: 'observability' },
  [`GET ${P}/openapi.json`]: { summary: 'this document', tag: 'supervisor', auth: 'none' },
  [`GET ${P}/identify`]: { summary: 'says this is a Hub and which pool protocol it speaks', tag: 'peer', auth: 'none' },
  [`GET ${P}/status`]: { summary: 'pool status: this node, its engines, peers, switches (from memory only)', tag: 'observability' },
  [`GET ${P}/routing-log`]: { summary: 'routing-log rows, paged by `since` and `limit`, with a summary', tag: 'observability' },
  [`GET ${P}/handout`]: { summary: 'the context window to hand an app for `model`', tag: 'operator' },
  [`GET ${P}/settings`]: { summary: 'pool settings', tag: 'operator', answer: settingsSchema() },
  [`PATCH ${P}/settings`]: {
    summary: 'change pool settings (a JSON object of the keys to change)',
    tag: 'operator',
    body: settingsPatchSchema(),
    answer: settingsSchema(),
  },
  [`GET ${P}/settings/catalogue`]: { summary: 'every setting with its range, default and meaning', tag: 'operator' },
  'GET /api/hub/api-keys': { summary: 'API keys (never the keys themselves)', tag: 'operator' },
  'POST /api/hub/api-keys': { summary: 'create an API key `{ name, scope }`; the key is shown once', tag: 'operator' },
  'DELETE /api/hub/api-keys/:id': { summary: 'revoke an API key', tag: 'operator' },
  [`GET ${P}/peers`]: { summary: 'paired peers as this Hub sees them', tag: 'operator' },
  [`POST ${P}/peers/pair`]: { summary: 'ask a Hub to pair `{ nodeFqdn | address, pin }`', tag: 'operator' },
  [`POST ${P}/peers/probe`]: { summary: 'check that an address answers as a Hub before pairing by address', tag: 'operator' },
  [`POST ${P}/peers/:ref/approve`]: { summary: 'approve a pending pairing request', tag: 'operator' },
  [`POST ${P}/peers/:ref/reject`]: { summary: 'reject a pending pairing request', tag: 'operator' },
  [`POST ${P}/peers/:ref/enable`]: { summary: 'send work to this peer again', tag: 'operator' },
  [`POST ${P}/peers/:ref/disable`]: { summary: 'stop sending work to this peer (and taking its work)', tag: 'operator' },
  [`DELETE ${P}/peers/:ref`]: { summary: 'unpair, telling the peer', tag: 'operator' },
  [`GET ${P}/peers/discoverable`]: {
    summary: 'Hubs on the tailnet that could be paired, and unverified ones heard over mDNS when LAN discovery is on',
    tag: 'operator',
  },
  [`GET ${P}/peers/directories`]: { summary: 'which directories discovery can ask', tag: 'operator' },
  [`GET ${P}/peers/clocks`]: { summary: "each peer's clock skew against this Hub", tag: 'operator' },
  [`GET ${P}/tailscale`]: { summary: 'what this Hub knows of Tailscale (daemon, Serve, operator permission)', tag: 'operator' },
  [`POST ${P}/pairing-pin`]: { summary: 'mint a pairing PIN (six digits, ten minutes, single use)', tag: 'operator' },
  [`DELETE ${P}/pairing-pin`]: { summary: 'withdraw the pairing PIN', tag: 'operator' },
  [`POST ${P}/identity/rotate`]: { summary: "rotate this Hub's identity key", tag: 'operator' },
  [`GET ${P}/pins`]: { summary: 'placement pins', tag: 'operator' },
  [`POST ${P}/pins`]: { summary: 'pin a model (or every model) to a node', tag: 'operator' },
  [`DELETE ${P}/pins`]: { summary: 'remove a pin', tag: 'operator' },
  'PATCH /api/user-settings': { summary: "state this node's Ollama slots or context cap (`inferenceOllamaSlots`, `inferenceMaxNumCtx`)", tag: 'operator' },
  'PATCH /api/inference/preferences': { summary: "state or clear this node's Ollama slots or context cap (`ollamaSlots`, `maxNumCtx`)", tag: 'operator' },
  'GET /api/hub/logs': { summary: "the Hub's own log lines, filtered by level and time, with a cursor to follow from", tag: 'operator' },
  'GET /api/hub/boot': {
    summary:
      "this process's boot id `{ bootId }` and, given `?challenge=`, a proof that it holds the operator key; `cihub` checks both against hub.json and operator.key before it sends the key",
    tag: 'supervisor',
    auth: 'none',
  },
  'GET /': { summary: 'the dashboard page', tag: 'dashboard', auth: 'none' },
  'GET /assets/:name': { summary: "the dashboard's scripts and styles", tag: 'dashboard', auth: 'none' },
  'POST /api/hub/session': {
    summary: 'sign the browser in with the operator key, a qa:read key or a one-time link; the only answer carrying the CSRF token',
    tag: 'dashboard',
    auth: 'none',
  },
  'GET /api/hub/session': {
    summary: "the browser's session (never its token) when the cookie comes with its CSRF token, or signed out",
    tag: 'dashboard',
    auth: 'session',
  },
  'DELETE /api/hub/session': { summary: 'sign out', tag: 'dashboard', auth: 'session' },
  'POST /api/hub/session/link': { summary: 'a one-time sign-in link (`cihub dashboard`)', tag: 'dashboard' },
  'GET /dashboard/sign-in/:token': {
    summary: 'where a one-time sign-in link lands: on to the page with the token in the fragment, spending nothing',
    tag: 'dashboard',
    auth: 'none',
  },
  [`POST ${P}/pair/request`]: { summary: 'a Hub asks to pair, with a PIN (the one unauthenticated peer write)', tag: 'peer', auth: 'none' },
  [`POST ${P}/pair/confirm`]: { summary: 'the approving Hub confirms a pairing', tag: 'peer', auth: 'peer' },
  [`POST ${P}/pair/upgrade`]: { summary: 'a peer moves the pairing to signed requests', tag: 'peer', auth: 'peer' },
  [`POST ${P}/pair/reject`]: { summary: 'a peer rejected the pairing request', tag: 'peer', auth: 'peer' },
  [`POST ${P}/pair/unpair`]: { summary: 'a peer ended the pairing', tag: 'peer', auth: 'peer' },
  [`POST ${P}/leaving`]: { summary: 'a peer is shutting down (acted on only when signed; a bearer token is refused)', tag: 'peer', auth: 'peer' },
  [`GET ${P}/capabilities`]: { summary: "this Hub's engines, models, load and limits, for a peer's placement", tag: 'peer', auth: 'peer' },
  [`POST ${P}/local/api/show`]: { summary: "a peer asks this node's Ollama about a model", tag: 'peer', auth: 'peer' },
  [`GET ${P}/v1/models`]: { summary: "the pool's models (OpenAI)", tag: 'app proxy', auth: 'inference' },
  [`GET ${P}/v1/models/*`]: {
    summary: "one model's card from the pool's listing (openai.models.retrieve), else 404 naming it (OpenAI)",
    tag: 'app proxy',
    auth: 'inference',
    wildcard: 'model',
  },
  [`GET ${P}`]: { summary: "Ollama's heartbeat: 200 and plain text, as Ollama answers at its root", tag: 'app proxy', auth: 'inference' },
  [`GET ${P}/`]: { summary: "Ollama's heartbeat, with the trailing slash Ollama's clients send", tag: 'app proxy', auth: 'inference' },
  [`GET ${P}/api/tags`]: { summary: "the pool's models a native request can be placed on (Ollama)", tag: 'app proxy', auth: 'inference' },
  [`GET ${P}/api/ps`]: { summary: "this machine's Ollama: loaded models", tag: 'app proxy', auth: 'inference' },
  [`GET ${P}/api/version`]: { summary: "this machine's Ollama version", tag: 'app proxy', auth: 'inference' },
  [`POST ${P}/api/show`]: { summary: 'model details from a node that holds the model', tag: 'app proxy', auth: 'inference' },
};

const routed = Object.fromEntries(
  ROUTED_ROUTES.flatMap((r): [RouteKey, RouteDoc][] => [
    [
      `POST ${P}${r.path}`,
      { summary: `${r.path} (${r.dialect === 'openai' ? 'OpenAI' : 'Ollama'}), placed on a pool node with failover`, tag: 'app proxy', auth: 'inference' },
    ],
    [`POST ${P}/local${r.path}`, { summary: `a peer's forward of ${r.path}, served by this node's own engines`, tag: 'peer', auth: 'peer' }],
  ]),
);

/** Model management is registered for every method only to refuse it in the app's dialect. */
const refused = Object.fromEntries(
  MODEL_MANAGEMENT_PATHS.map((path): [RouteKey, RouteDoc] => [
    `ALL ${P}${path}`,
    { summary: `${path}: refused (404 HUB_ERR_ROUTE_NOT_PROXIED): models are managed on each node's own engine`, tag: 'app proxy', auth: 'inference' },
  ]),
);

export const ROUTE_CATALOGUE: Readonly<Record<RouteKey, RouteDoc>> = Object.freeze({ ...fixed, ...routed, ...refused });
