/**
 * `cihub pool probe ADDRESS[:PORT]` and `cihub pool pair ADDRESS --pin D`: finding and pairing
 * with a Hub on the LAN that no directory names (spec: "Finding a peer by address"). The Hub
 * does the dialling and the address checks; this turns its records into sentences.
 */
import { isIP } from 'node:net';
import type { PeerView } from '../../peers/peer-view.js';
import type { ProbeResult } from '../../pairing/pair-by-address.js';
import { authority, parseAddressTarget } from '../../tailnet/address-target.js';
import { normalizePeerName } from '../../tailnet/peer-name.js';
import { callHub, findHub, UsageError } from '../hub-client.js';
import { step } from '../steps.js';
import { confirm } from '../confirm.js';
import type { CommonOptions } from './pool.js';

const POOL = '/api/inference/pool';

/**
 * Whether the operator gave an address rather than a MagicDNS name: an IP literal, or anything
 * with a port. A bare multi-label host name is taken as a tailnet name, the common case.
 */
export function isAddressTarget(target: string): boolean {
  if (normalizePeerName(target).ok) return false;
  const parsed = parseAddressTarget(target);
  return parsed.ok && (isIP(parsed.target.host) !== 0 || parsed.target.port !== null || !parsed.target.host.includes('.'));
}

/**
 * What the probe's advice hands to `cihub pool pair`: the operator's own words when pair reads
 * them as an address, else the host with the port that answered. A dotted LAN name such as
 * `nas.lan` is read by pair as a tailnet name, so echoing it back sent the operator down the
 * pairing-by-name path, which dials https://nas.lan and never uses the address probed.
 */
export function pairTargetFor(given: string, found: Pick<ProbeResult, 'address' | 'port'>): string {
  return isAddressTarget(given) ? given : authority(found.address, found.port);
}

export async function probe(opts: CommonOptions & { address: string }): Promise<string> {
  const hub = findHub(opts.dataDir);
  step(`asking ${opts.address} whether a Hub answers there`);
  const found = await callHub<ProbeResult>(hub, 'POST', `${POOL}/peers/probe`, { address: opts.address });
  if (opts.json) return `${JSON.stringify(found, null, 2)}\n`;
  const where = `${found.address}:${found.port}`;
  if (!found.pairable) {
    return `A Hub answers at ${where}, on pool protocol ${found.poolProtocol}: too old to pair by address (it would ignore the PIN and never say its name). Pair with it by its MagicDNS name instead: cihub pool pair <its name>.\n`;
  }
  return [
    `A Hub answers at ${where} (pool protocol ${found.poolProtocol}). Its name stays unknown until it answers a PIN.`,
    'To pair with it:',
    '  on that Hub:  cihub pool pairing-pin',
    `  here:         cihub pool pair ${pairTargetFor(opts.address, found)} --pin <the six digits>`,
    '',
  ].join('\n');
}

export async function pairByAddress(
  opts: CommonOptions & { address: string; pin: string | undefined; yes: boolean; assumeYes: boolean },
  selfName: () => Promise<string | null>,
): Promise<string> {
  if (opts.pin === undefined) {
    throw new UsageError(
      `Pairing by address needs --pin: only the other Hub's answer to a valid PIN tells this Hub its name, so mint one there with \`cihub pool pairing-pin\`; nothing was sent.`,
    );
  }
  const hub = findHub(opts.dataDir);
  await confirm(`Send a pairing request with PIN ${opts.pin} to the Hub at ${opts.address}? It still has to approve it.`, opts);
  step(`sending the pairing request to ${opts.address} and waiting for its answer`);
  const answer = await callHub<{ peer: PeerView | null; pinVerified: boolean }>(hub, 'POST', `${POOL}/peers/pair`, { address: opts.address, pin: opts.pin });
  if (opts.json) return `${JSON.stringify(answer, null, 2)}\n`;
  const name = answer.peer?.nodeFqdn ?? '<its name>';
  const me = (await selfName()) ?? "<this Hub's name>";
  return [
    `Pairing request sent to the Hub at ${opts.address}: it accepted the PIN and named itself ${name}.`,
    `This Hub pinned its key${answer.peer?.fingerprint ? ` (fingerprint ${answer.peer.fingerprint})` : ''} and will reach it at https://${name} from now on; the address is not kept.`,
    '',
    `It is not paired yet: ${name} has to approve it. On ${name}, run:`,
    '  cihub pool peers',
    `  cihub pool approve ${me}`,
    '',
  ].join('\n');
}
