/**
 * This Hub's Tailscale client and tailnet self as the environment makes them: the `tailscale` on
 * PATH, the address the Hub listens on, the HUB_NODE_FQDN / HUB_TAILNET_SUFFIX stand-ins, and the
 * account this process runs as. The Hub builds them at start; `cihub pool doctor` builds the same
 * in the CLI's own process when no Hub can be asked, so both judge Tailscale by one composition.
 */
import { userInfo } from 'node:os';
import type { Logger } from 'pino';
import type { HubEnv } from '../config/env.js';
import type { Clock } from '../util/clock.js';
import { readTailnetSelf, type TailnetSelf } from './tailnet-self.js';
import type { TailscaleCaller } from './tailscale-status.js';
import { TailscaleClient } from './tailscale-client.js';
import { tailscaleRunner } from './tailscale-exec.js';
import { tailscaleReport, type TailscaleReport } from './tailscale-report.js';

export type TailscaleEnv = Pick<HubEnv, 'tailscaleBinary' | 'host' | 'nodeFqdn' | 'tailnetSuffix'>;

export interface EnvTailscale {
  readonly tailscale: TailscaleClient;
  readonly self: () => Promise<TailnetSelf>;
}

export function envTailscale(env: TailscaleEnv, clock: Clock, logger?: Logger, caller: TailscaleCaller = 'hub'): EnvTailscale {
  const tailscale = new TailscaleClient({
    caller,
    run: tailscaleRunner(env.tailscaleBinary),
    clock,
    account: userInfo().username,
    isRoot: process.getuid?.() === 0,
    hubHost: env.host,
    ...(logger === undefined ? {} : { logger }),
  });
  const self = () => readTailnetSelf({ envFqdn: env.nodeFqdn, envSuffix: env.tailnetSuffix, status: () => tailscale.status() });
  return { tailscale, self };
}

/** The report a Hub on `port` would give of its Tailscale, read from the CLI's own process (worded as the CLI's). */
export async function envTailscaleReport(env: TailscaleEnv, port: number, clock: Clock): Promise<TailscaleReport> {
  const { tailscale, self } = envTailscale(env, clock, undefined, 'cli');
  return tailscaleReport(tailscale, await self(), env.tailscaleBinary, port);
}
