/**
 * This Hub's own tailnet name and suffix. The suffix is what inbound pairing compares a
 * claimed peer name against, and the name is what a Hub refuses to pair with (itself).
 * HUB_NODE_FQDN / HUB_TAILNET_SUFFIX stand in for the daemon in development and tests;
 * otherwise the answer comes from the daemon's status (tailscale-client.ts, cached 30 s).
 */
import { normalizePeerName, normalizeTailnetSuffix } from './peer-name.js';
import { parseTailscaleStatusDocument, type TailscaleState } from './tailscale-status.js';

export interface TailnetSelf {
  nodeFqdn: string | null;
  tailnetSuffix: string | null;
  tailscaleConnected: boolean;
  source: 'env' | 'tailscale' | 'none';
}

const NOTHING: TailnetSelf = Object.freeze({ nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none' });

/**
 * The self fields of a daemon status. Name and suffix are kept even when the backend is not
 * Running, so a Hub whose daemon is merely stopped still checks peer names against its
 * tailnet instead of accepting everyone.
 */
export function selfFromState(state: TailscaleState): TailnetSelf {
  if (!state.answered) return NOTHING;
  return { nodeFqdn: state.nodeFqdn, tailnetSuffix: state.tailnetSuffix, tailscaleConnected: state.connected, source: 'tailscale' };
}

/** The self fields of a raw `tailscale status --json` document. */
export function parseTailscaleStatus(json: unknown): TailnetSelf {
  return selfFromState(parseTailscaleStatusDocument(json));
}

export interface ReadTailnetSelfOptions {
  envFqdn: string | null;
  envSuffix: string | null;
  /** The daemon's status (never rejects: a failed read is an unanswered state). */
  status: () => Promise<TailscaleState>;
}

function nameOrNull(raw: string | null): string | null {
  if (raw === null) return null;
  const result = normalizePeerName(raw);
  return result.ok ? result.name : null;
}

/**
 * Env first, then the daemon. config/env.ts has already refused, with a start-up warning, a value
 * that does not normalise; normalising again keeps a raw value from any other caller safe. When
 * only HUB_NODE_FQDN is given the suffix is everything after its first label, which is how
 * MagicDNS builds names (host.<suffix>). The env stand-in says nothing about the daemon, so
 * tailscaleConnected stays false on that path.
 */
export async function readTailnetSelf(opts: ReadTailnetSelfOptions): Promise<TailnetSelf> {
  const envFqdn = nameOrNull(opts.envFqdn);
  const envSuffix = opts.envSuffix === null ? null : normalizeTailnetSuffix(opts.envSuffix);
  if (envFqdn !== null || envSuffix !== null) {
    const derived = envFqdn === null ? null : envFqdn.slice(envFqdn.indexOf('.') + 1);
    return { nodeFqdn: envFqdn, tailnetSuffix: envSuffix ?? derived, tailscaleConnected: false, source: 'env' };
  }
  try {
    return selfFromState(await opts.status());
  } catch {
    return NOTHING;
  }
}
