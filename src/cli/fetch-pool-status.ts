/**
 * GET /status for every command that reads it, and the one place its shape is checked. A Hub
 * started before an upgrade keeps answering with the document its own release built, which can
 * lack fields this CLI reads: contextCaps came after earlier releases, and reading it from such
 * a document crashed `pool status` and `pool doctor` on undefined. A missing contextCaps is
 * named as what it is, a Hub older than this CLI, rather than left to fail in a renderer.
 */
import { identityFix } from '../identity/identity-fix.js';
import type { PoolStatus } from '../status/pool-status.js';
import { callHub, CliError, type HubTarget } from './hub-client.js';
import { CIHUB_VERSION } from './version.js';

export const POOL_STATUS_PATH = '/api/inference/pool/status';

/** The status document for a command that reads its contextCaps; a CliError naming the restart when the Hub sent none. */
export async function fetchPoolStatus(hub: HubTarget): Promise<PoolStatus> {
  const status = await callHub<unknown>(hub, 'GET', POOL_STATUS_PATH);
  if (!hasContextCaps(status)) {
    throw new CliError(
      `The Hub at ${hub.url} is older than this cihub (${CIHUB_VERSION}): its status has no contextCaps, so this CLI cannot read it. Restart the Hub with \`cihub serve\` (or its service manager) so the two agree.`,
    );
  }
  // startupWarnings came after contextCaps: a Hub from between the two started with none it could report.
  const warnings = (status as { startupWarnings?: unknown }).startupWarnings;
  if (warnings !== undefined && (!Array.isArray(warnings) || !warnings.every((w) => typeof w === 'string')))
    throw new CliError(
      `The Hub at ${hub.url} sent a status whose startupWarnings is not a list of sentences, so this CLI cannot read it (cihub ${CIHUB_VERSION}).`,
    );
  return { ...status, startupWarnings: warnings ?? [], localNode: { ...status.localNode, identity: withIdentityFix(status.localNode.identity) } };
}

/**
 * identityCause and identityFix came after contextCaps: a Hub from before them named no cause, and
 * the fix it would have given is chosen as it chose it, by whether a key was ever made. Without
 * this, `pool status` printed "Fix: undefined".
 */
function withIdentityFix(identity: PoolStatus['localNode']['identity']): PoolStatus['localNode']['identity'] {
  if (identity === null || (identity as { identityFix?: unknown }).identityFix !== undefined) return identity;
  const fix = identity.identityError === null ? null : identityFix(identity.nodeUuid === null ? 'secret-invalid' : 'key-unopenable');
  return { ...identity, identityCause: null, identityFix: fix };
}

/**
 * The status document for a command that reads back a field or two after changing something
 * (pin, ceiling, context cap, pool on/off). Every Hub that records pins, ceilings, caps and
 * switches in status already sent those fields before contextCaps came, so an older Hub answers them, and refusing there would report a change the Hub made as a
 * failure. The type leaves contextCaps out, so a reader of it cannot start here unchecked.
 */
export async function fetchPoolStatusWithoutCaps(hub: HubTarget): Promise<Omit<PoolStatus, 'contextCaps'>> {
  return callHub<Omit<PoolStatus, 'contextCaps'>>(hub, 'GET', POOL_STATUS_PATH);
}

function hasContextCaps(status: unknown): status is PoolStatus {
  const caps = (status as { contextCaps?: unknown } | null)?.contextCaps as { caps?: unknown; nodes?: unknown; uncapped?: unknown } | null | undefined;
  return typeof caps === 'object' && caps !== null && Array.isArray(caps.caps) && Array.isArray(caps.nodes) && Array.isArray(caps.uncapped);
}
