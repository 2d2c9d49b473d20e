/**
 * Liveness and readiness for supervisors (systemd, Docker's HEALTHCHECK, Kubernetes probes):
 * GET /healthz answers while the process serves HTTP at all; GET /readyz answers 200 only while
 * the Hub can take work (listening, its store open, not draining after SIGTERM) and 503 naming
 * what is missing otherwise. Both are unauthenticated and carry metadata only, so a local
 * supervisor needs no credential; neither names a peer, an engine or a model.
 */
import type { FastifyInstance } from 'fastify';

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';
/** Paths a supervisor must reach without a credential, and during a drain. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set([HEALTHZ_PATH, READYZ_PATH]);

export interface ReadinessChecks {
  /** The HTTP server is bound and accepting connections. */
  readonly listening: boolean;
  /** The SQLite store (keys, peers, identity) is open. */
  readonly storeOpen: boolean;
  /** SIGTERM arrived: in-flight requests are finishing and new ones are refused. */
  readonly draining: boolean;
}

export type NotReadyReason = 'not_listening' | 'store_closed' | 'draining';

/** Why the Hub is not ready, in a fixed order; empty when it is. */
export function notReadyReasons(c: ReadinessChecks): NotReadyReason[] {
  const reasons: NotReadyReason[] = [];
  if (!c.listening) reasons.push('not_listening');
  if (!c.storeOpen) reasons.push('store_closed');
  if (c.draining) reasons.push('draining');
  return reasons;
}

export function registerHealthRoutes(app: FastifyInstance, readiness: () => ReadinessChecks): void {
  app.get(HEALTHZ_PATH, async () => ({ status: 'alive' }));
  app.get(READYZ_PATH, async (_request, reply) => {
    const checks = readiness();
    const reasons = notReadyReasons(checks);
    void reply.code(reasons.length === 0 ? 200 : 503).header('cache-control', 'no-store');
    return { ready: reasons.length === 0, reasons, checks };
  });
}
