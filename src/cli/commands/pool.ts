/** `cihub pool ...`: status, log, enable and disable, as a client of this machine's Hub. */
import type { RoutingLogPage } from '../../routing-log/entry.js';
import type { PoolSettings } from '../../config/settings-schema.js';
import { SWITCH_ENV_FLAGS } from '../../config/kill-switch.js';
import type { PoolStatus } from '../../status/pool-status.js';
import { parseSince } from '../../routing-log/since.js';
import { parseAgeMs } from '../../logs/log-record.js';
import { callHub, findHub, UsageError } from '../hub-client.js';
import { fetchPoolStatus, fetchPoolStatusWithoutCaps } from '../fetch-pool-status.js';
import { confirm } from '../confirm.js';
import { sinceFlagRefusal } from '../since-flag.js';
import { lineSafe } from '../output.js';
import { renderPoolStatus } from '../render/pool-status.js';
import { renderRoutingLog } from '../render/routing-log.js';

export interface CommonOptions {
  readonly dataDir: string;
  readonly json?: boolean;
}

export async function poolStatus(opts: CommonOptions): Promise<string> {
  const hub = findHub(opts.dataDir);
  const status = await fetchPoolStatus(hub);
  if (opts.json) return `${JSON.stringify(status, null, 2)}\n`;
  const log = await callHub<RoutingLogPage>(hub, 'GET', '/api/inference/pool/routing-log?limit=1');
  return renderPoolStatus(lineSafe(status), log.summary);
}

export async function poolLog(opts: CommonOptions & { limit?: number | undefined; since?: string | undefined; nowMs?: number }): Promise<string> {
  // An age (10m, as `cihub logs` takes) is a time on this machine's clock, which the Hub shares.
  // One reaching back before 1970 (999999d) asks for every row: written as a year before 0 it
  // was refused as no ISO time, quoting a date the operator never typed.
  const ageMs = opts.since === undefined ? null : parseAgeMs(opts.since);
  const since = ageMs === null ? opts.since : new Date(Math.max(0, (opts.nowMs ?? Date.now()) - ageMs)).toISOString();
  if (since !== undefined) {
    // Checked here with the Hub's own parser, so a wrong value is a usage error worded for a flag.
    const parsed = parseSince(since);
    if (!parsed.ok) throw new UsageError(sinceFlagRefusal(since, parsed.problem));
  }
  const hub = findHub(opts.dataDir);
  const query = new URLSearchParams();
  if (opts.limit !== undefined) query.set('limit', String(opts.limit));
  if (since !== undefined) query.set('since', since);
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
  const status = await fetchPoolStatusWithoutCaps(hub);
  // Only the master variable locks the master switch (config/kill-switch.ts).
  const lockedBy = status.disabledBy === 'env' ? SWITCH_ENV_FLAGS.master : null;
  // The settings' own keys stay at the top, as before; what is in force, and why, beside them.
  if (opts.json) return `${JSON.stringify({ ...settings, enabled: status.enabled, disabledBy: status.disabledBy, lockedBy }, null, 2)}\n`;
  if (lockedBy !== null)
    return on
      ? `Hub Pool stays off: the poolEnabled setting is saved as true, but ${lockedBy}=true in this Hub's environment keeps pooling off until it is removed and the Hub restarted.\n`
      : `Hub Pool is off (poolEnabled: false); ${lockedBy}=true in this Hub's environment keeps it off as well.\n`;
  const stillOff = on ? directionsStillOff(status) : [];
  return `Hub Pool is now ${on ? 'on' : 'off'} (poolEnabled: ${settings.poolEnabled}).${stillOff.map((line) => ` ${line}`).join('')}\n`;
}

/** With the pool back on, each direction that its own switch still holds off, and how to turn it on. */
function directionsStillOff(status: Pick<PoolStatus, 'directions'>): string[] {
  const directions = [
    { d: status.directions.outbound, name: 'Sending work to peers', variable: SWITCH_ENV_FLAGS.outbound, setting: 'poolOutboundEnabled' },
    { d: status.directions.inbound, name: 'Serving peers', variable: SWITCH_ENV_FLAGS.inbound, setting: 'poolInboundEnabled' },
  ];
  return directions
    .filter(({ d }) => !d.enabled)
    .map(({ d, name, variable, setting }) =>
      d.disabledBy === 'env'
        ? `${name} stays off: ${variable}=true in this Hub's environment keeps it off until it is removed and the Hub restarted.`
        : `${name} stays off: ${setting} is false (turn it on with \`cihub pool set ${setting} true\`).`,
    );
}
