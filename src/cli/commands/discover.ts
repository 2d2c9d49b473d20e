/** `cihub pool discover [--json]`: unpaired Hubs this Hub can name (each one probed by the Hub). */
import type { Discovery } from '../../discovery/discovery-service.js';
import { callHub, findHub } from '../hub-client.js';
import { lineSafe } from '../output.js';
import { renderDiscovery } from '../render/discovery.js';
import type { CommonOptions } from './pool.js';

export async function poolDiscover(opts: CommonOptions): Promise<string> {
  const found = await callHub<Discovery>(findHub(opts.dataDir), 'GET', '/api/inference/pool/peers/discoverable');
  return opts.json ? `${JSON.stringify(found, null, 2)}\n` : renderDiscovery(lineSafe(found));
}
