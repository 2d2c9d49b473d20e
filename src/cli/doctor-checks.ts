/**
 * `cihub pool doctor`: read-only checks of whether this Hub can pool and whether peers will
 * reach it, as records (code, verdict, what was found, what to do). Pure: the command gathers
 * the status document and what Tailscale Serve publishes, and prints the records.
 */
import type { PoolStatus } from '../status/pool-status.js';

export type Verdict = 'ok' | 'warn' | 'fail' | 'unknown';

export interface DoctorCheck {
  /** Stable code: C* tailnet, P* pooling, E* engines, D* development settings, F* peers. */
  readonly code: string;
  readonly verdict: Verdict;
  readonly found: string;
  /** What to do; null when nothing is needed. */
  readonly fix: string | null;
}

/** What `tailscale serve status --json` says about this Hub's port: null when it could not be read. */
export type ServeInfo = { readonly publishesPort: boolean } | null;

export function doctorChecks(status: PoolStatus, serve: ServeInfo, hubPort: number): DoctorCheck[] {
  const node = status.localNode;
  const checks: DoctorCheck[] = [];
  checks.push(
    node.nodeFqdn !== null
      ? { code: 'C1', verdict: 'ok', found: `tailnet name ${node.nodeFqdn}${node.tailnetSource === 'env' ? ' (HUB_NODE_FQDN stand-in)' : ''}`, fix: null }
      : { code: 'C1', verdict: 'fail', found: 'this Hub has no tailnet name', fix: 'connect Tailscale and turn on MagicDNS for the tailnet' },
  );
  checks.push(
    serve === null
      ? { code: 'C2', verdict: 'unknown', found: 'could not read `tailscale serve status --json` on this machine', fix: `publish the Hub with Tailscale Serve (https:443 → http://127.0.0.1:${hubPort})` }
      : serve.publishesPort
        ? { code: 'C2', verdict: 'ok', found: `Tailscale Serve publishes port ${hubPort}`, fix: null }
        : { code: 'C2', verdict: 'fail', found: `Tailscale Serve does not publish port ${hubPort}`, fix: `run once on this machine: tailscale serve --bg --https=443 http://127.0.0.1:${hubPort}` },
  );
  checks.push(
    status.enabled
      ? { code: 'P1', verdict: status.reason === 'partially_disabled' ? 'warn' : 'ok', found: `Hub Pool is on (${status.reason})`, fix: null }
      : { code: 'P1', verdict: 'fail', found: `Hub Pool is off (${status.disabledBy === 'env' ? 'HUB_POOL_USER_DISABLED in the environment' : 'poolEnabled is false'})`, fix: status.disabledBy === 'env' ? 'remove HUB_POOL_USER_DISABLED=true and restart' : 'cihub pool enable' },
  );
  const identity = node.identity;
  checks.push(
    identity === null
      ? { code: 'P2', verdict: 'ok', found: 'no pool identity yet (made on first use)', fix: null }
      : identity.identityError === null
        ? { code: 'P2', verdict: 'ok', found: `identity ${identity.fingerprint}`, fix: null }
        : { code: 'P2', verdict: 'fail', found: `the identity key cannot be opened: ${identity.identityError}`, fix: 'cihub pool rotate-identity, then pair again' },
  );
  const healthy = node.backends.filter((b) => b.healthy);
  checks.push(
    healthy.length > 0
      ? { code: 'E1', verdict: 'ok', found: `${healthy.length} of ${node.backends.length} engines healthy`, fix: null }
      : { code: 'E1', verdict: 'warn', found: node.backends.length === 0 ? 'no engine configured' : 'no engine answers', fix: 'check the engine URLs (OLLAMA_URL, VLLM_URL, ...) and that the engines run' },
  );
  if (node.peerOriginsMap.active) {
    checks.push({
      code: 'D1',
      verdict: 'warn',
      found: `HUB_POOL_PEER_ORIGINS is set: peers are dialled at ${node.peerOriginsMap.entries.map((e) => `${e.name} → ${e.origin}`).join(', ')}`,
      fix: 'development only: unset it on a real tailnet',
    });
  }
  const refusing = status.peers.filter((p) => p.probeFailure !== null && p.probeFailure.kind !== 'unreachable');
  checks.push(
    refusing.length === 0
      ? { code: 'F1', verdict: 'ok', found: 'no peer refuses this Hub', fix: null }
      : { code: 'F1', verdict: 'fail', found: refusing.map((p) => `${p.nodeFqdn}: ${p.probeFailure!.kind.replace('_', ' ')}`).join('; '), fix: refusing.map((p) => p.probeFailure!.action).join(' | ') },
  );
  return checks;
}

/** Whether a `tailscale serve status --json` document proxies some HTTPS handler to the port. */
export function servePublishesPort(json: unknown, port: number): boolean {
  const web = (json as { Web?: Record<string, { Handlers?: Record<string, { Proxy?: unknown }> }> } | null)?.Web;
  if (typeof web !== 'object' || web === null) return false;
  return Object.values(web).some((site) =>
    Object.values(site?.Handlers ?? {}).some((h) => typeof h?.Proxy === 'string' && new RegExp(`^(https?://)?(127\\.0\\.0\\.1|localhost|\\[::1\\]):${port}(/|$)`).test(h.Proxy)),
  );
}
