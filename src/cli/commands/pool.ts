/** `cihub pool ...`: status, log, enable and disable, as a client of this machine's Hub. */
import type { PoolStatus } from '../../status/pool-status.js';
import type { RoutingLogPage } from '../../routing-log/entry.js';
import type { PoolSettings } from '../../config/settings-schema.js';
import { callHub, findHub } from '../hub-client.js';
import { confirm } from '../confirm.js';
import { lineSafe } from '../output.js';
import { renderPoolStatus } from '../render/pool-status.js';
import { renderRoutingLog } from '../render/routing-log.js';

export interface CommonOptions {
  readonly dataDir: string;
  readonly json?: boolean;
}

export async function poolStatus(opts: CommonOptions): Promise<string> {
  const hub = findHub(opts.dataDir);
  const status = await callHub<PoolStatus>(hub, 'GET', '/api/inference/pool/status');
  if (opts.json) return `${JSON.stringify(status, null, 2)}\n`;
  const log = await callHub<RoutingLogPage>(hub, 'GET', '/api/inference/pool/routing-log?limit=1');
  return renderPoolStatus(lineSafe(status), log.summary);
}

export async function poolLog(opts: CommonOptions & { limit?: number | undefined; since?: string | undefined }): Promise<string> {
  const hub = findHub(opts.dataDir);
  const query = new URLSearchParams();
  if (opts.limit !== undefined) query.set('limit', String(opts.limit));
  if (opts.since !== undefined) query.set('since', opts.since);
  const qs = query.toString();
  const page = await callHub<RoutingLogPage>(hub, 'GET', `/api/inference/pool/routing-log${qs ? `?${qs}` : ''}`);
  if (opts.json) return `${JSON.stringify(page, null, 2)}\n`;
  // The Hub runs on this machine, so this clock dates a pending row's wait as the Hub's does.
  const text = renderRoutingLog(lineSafe(page), { now: Date.now() });
  return text.endsWith('\n') ? text : `${text}\n`;
}

export async function poolSwitch(on: boolean, opts: CommonOptions & { yes: boolean; assumeYes: boolean }): Promise<string> {
  const hub = findHub(opts.dataDir);
  await confirm(
    on ? 'Turn Hub Pool on for this Hub?' : 'Turn Hub Pool off for this Hub? Peers will stop receiving work from it and mark it unreachable.',
    opts,
  );
  const settings = await callHub<PoolSettings>(hub, 'PATCH', '/api/inference/pool/settings', { poolEnabled: on });
  const status = await callHub<PoolStatus>(hub, 'GET', '/api/inference/pool/status');
  // Only the master variable locks the master switch (config/kill-switch.ts).
  const lockedBy = status.disabledBy === 'env' ? USER_DISABLED_VARIABLE : null;
  // The settings' own keys stay at the top, as before; what is in force, and why, beside them.
  if (opts.json) return `${JSON.stringify({ ...settings, enabled: status.enabled, disabledBy: status.disabledBy, lockedBy }, null, 2)}\n`;
  if (lockedBy !== null)
    return on
      ? `Hub Pool stays off: the poolEnabled setting is saved as true, but ${lockedBy}=true in this Hub's environment keeps pooling off until it is removed and the Hub restarted.\n`
      : `Hub Pool is off (poolEnabled: false); ${lockedBy}=true in this Hub's environment keeps it off as well.\n`;
  return `Hub Pool is now ${on ? 'on' : 'off'} (poolEnabled: ${settings.poolEnabled}).\n`;
}

const USER_DISABLED_VARIABLE = 'HUB_POOL_USER_DISABLED';
