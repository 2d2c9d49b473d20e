/**
 * Builds the Hub's HTTP server: operator routes, the proxy, one error mapping and one
 * not-found answer. Fastify's per-request logging is off: the Hub logs its own events,
 * which carry metadata and never a body.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { HubError } from '../errors.js';
import { parseRequestJson } from '../util/request-json.js';
import { NO_ROUTE_SCHEMAS } from './no-route-schemas.js';
import { ConnectionDrops } from './connection-drops.js';
import { edgeServerOptions, hostJudge, MAX_CONNECTIONS, registerEdgeGuard } from './edge.js';
import { MAX_PATH_PARAM_CHARS, toHubError } from './error-mapping.js';
import { answerNotFound } from './not-found.js';
import { answerError } from './error-answer.js';
import { jsonReply } from './json-reply.js';
import { registerOperatorRoutes } from './operator-routes.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { registerProxyRoutes } from './proxy-routes.js';
import { installProxyFrontDoor } from './proxy-front-door.js';
import { registerPeerRoutes } from './peer-routes.js';
import { registerPeerOperatorRoutes } from './peer-operator-routes.js';
import { registerPinRoutes } from './pin-routes.js';
import { HEALTH_PATHS, registerHealthRoutes } from './health-routes.js';
import { registerHubBootRoutes } from './hub-boot-routes.js';
import { registerAddressRoutes } from './address-routes.js';
import { registerMetricsRoutes } from './metrics-routes.js';
import { registerSettingsCatalogueRoutes } from './settings-catalogue-routes.js';
import { registerDiscoveryRoutes } from './discovery-routes.js';
import { registerSlotStatementRoutes } from './slot-statement-routes.js';
import { registerLogRoutes } from './log-routes.js';
import { registerRouteInputChecks } from './route-inputs.js';
import { recordRoutes, registerOpenApiRoutes } from './openapi-routes.js';
import type { HubServices } from './services.js';

/** Operator bodies are small JSON documents. */
export const OPERATOR_BODY_LIMIT_BYTES = 256 * 1024;

export async function buildServer(s: HubServices): Promise<FastifyInstance> {
  const app = Fastify({
    // logger: false already silences per-request logging; disableRequestLogging is deprecated
    // (FSTDEP023) and would print a non-JSON warning into the Hub's output on every start.
    logger: false,
    bodyLimit: OPERATOR_BODY_LIMIT_BYTES,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    schemaController: NO_ROUTE_SCHEMAS,
    routerOptions: { maxParamLength: MAX_PATH_PARAM_CHARS },
    ...edgeServerOptions(s.env),
  });
  app.server.maxConnections = MAX_CONNECTIONS;
  // Answers as JSON.stringify writes them, built in pieces (json-reply.ts). A large one comes back
  // as a Buffer, which Fastify sends as it sends any Buffer; its type for a serializer names only
  // string (json-reply.test.ts holds Fastify to it).
  app.setReplySerializer(jsonReply as (payload: unknown) => string);
  const drops = new ConnectionDrops(s.clock);
  app.server.on('drop', () => {
    s.metrics.onConnectionDropped();
    const turnedAway = drops.record();
    if (turnedAway !== null)
      s.logger.warn({ maxConnections: MAX_CONNECTIONS, turnedAway }, 'closed new connections unanswered: the Hub holds as many open connections as it allows');
  });
  // Before any route: the OpenAPI document is built from the routes as registered.
  const routes = recordRoutes(app);
  app.decorate('registeredRoutes', routes);
  // Operator bodies are JSON and nothing else (415 otherwise, text/plain included), parsed with
  // the depth bound every request body gets.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, (body as Buffer).length === 0 ? undefined : parseRequestJson(body as Buffer, { refusePrototypeKeys: true }));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // While draining after SIGTERM, requests still arriving on open keep-alive connections are
  // refused with a catalogued 503 rather than started and cut off.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request) => {
    // A supervisor asking whether the Hub is ready gets the answer (503, draining), not a refusal.
    if (closing && !HEALTH_PATHS.has(request.url.split('?')[0] ?? ''))
      throw new HubError('HUB_ERR_SHUTTING_DOWN', 'this Hub is shutting down; retry once it is back');
  });
  const hosts = hostJudge(s);
  registerEdgeGuard(app, hosts, s);
  // Also answers what the edge hooks refuse on a path no route takes, which under the app
  // prefixes is in the app's dialect (error-answer.ts).
  app.setErrorHandler((err, request, reply) => {
    const hubError = toHubError(err, request.headers['content-type']);
    if (hubError.code === 'HUB_ERR_INTERNAL') s.logger.error({ err }, 'operator route failed');
    answerError(request, reply, hubError);
  });
  app.setNotFoundHandler(answerNotFound);
  registerRouteInputChecks(app);
  registerHealthRoutes(app, () => ({ listening: app.server.listening, storeOpen: s.storeOpen(), draining: closing }));
  // Before the operator routes: their access rule reads the caller a dashboard session names.
  registerDashboardRoutes(app, s);
  registerOperatorRoutes(app, s);
  registerMetricsRoutes(app, s);
  registerPeerOperatorRoutes(app, s);
  registerPinRoutes(app, s);
  registerHubBootRoutes(app, s);
  registerAddressRoutes(app, s);
  registerSettingsCatalogueRoutes(app, s);
  registerDiscoveryRoutes(app, s);
  registerSlotStatementRoutes(app, s);
  registerLogRoutes(app, s);
  registerOpenApiRoutes(app, routes);
  await registerProxyRoutes(app, s);
  await registerPeerRoutes(app, s);
  installProxyFrontDoor(app.server, { s, hosts, closing: () => closing });
  return app;
}
