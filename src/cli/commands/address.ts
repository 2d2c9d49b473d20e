/**
 * `cihub pool probe ADDRESS[:PORT]` and `cihub pool pair ADDRESS --pin D`: finding and pairing
 * with a Hub on the LAN that no directory names (spec: "Finding a peer by address"). The Hub
 * does the dialling and the address checks; this turns its records into sentences.
 */
import { isIP } from 'node:net';
import type { PeerView } from '../../peers/peer-view.js';
import type { ProbeResult } from '../../pairing/pair-by-address.js';
import { authority, parseAddressTarget } from '../../tailnet/address-target.js';
import { belongsToTailnet, normalizePeerName, tailnetOf } from '../../tailnet/peer-name.js';
import { callHub, findHub, UsageError } from '../hub-client.js';
import { step } from '../steps.js';
import { confirm } from '../confirm.js';
import type { CommonOptions } from './pool.js';

const POOL = '/api/inference/pool';

/**
 * Whether the operator gave an address rather than a MagicDNS name: an IP literal, anything with
 * a port, a single label, or a dotted name outside this Hub's tailnet suffix (`nas.lan` beside
 * `tail1234.ts.net`). Such a name cannot be a peer's: peers share one tailnet suffix (a Hub named
 * under another refuses this Hub's name as outside its own, and a Hub paired by address must answer
 * with a name under this one), so sending a request to https://nas.lan could never end in a
 * pairing. It is taken as a LAN host name instead, which the Hub tries on port 5002, then 3000,
 * exactly as `cihub pool probe nas.lan` did. A MagicDNS name (`hub-z.tail9.ts.net`) is the
 * exception: it names a device on a tailnet, never a LAN host, so it stays a name and pair refuses
 * it as on another tailnet rather than suggest pairing by address.
 *
 * `tailnetSuffix` is the one `cihub pool status` reports; null means this Hub is on no tailnet and
 * has nothing to compare against. A dotted name then stays a tailnet name, as the Hub itself
 * treats it (belongsToTailnet passes every name), and either path ends in the same refusal:
 * a Hub with no tailnet name can pair neither way, and the Hub's answer says how to get one.
 */
export function isAddressTarget(target: string, tailnetSuffix: string | null = null): boolean {
  const name = normalizePeerName(target);
  if (name.ok) return tailnetOf(name.name) === null && outsideTailnet(name.name, tailnetSuffix);
  const parsed = parseAddressTarget(target);
  return parsed.ok && (isIP(parsed.target.host) !== 0 || parsed.target.port !== null || !parsed.target.host.includes('.'));
}

/** A well-formed name that this Hub's tailnet suffix rules out; false while there is no suffix to compare. */
function outsideTailnet(name: string, tailnetSuffix: string | null): boolean {
  return tailnetSuffix !== null && !belongsToTailnet(name, tailnetSuffix);
}

/**
 * What the probe's advice hands to `cihub pool pair`: the operator's own words when pair reads
 * them as an address whatever the suffix, else the host with the port that answered. Pair reads
 * a bare dotted name such as `nas.lan` as an address only when this Hub knows its tailnet suffix,
 * so the advice adds the port rather than depend on that, and names the port that answered.
 */
export function pairTargetFor(given: string, found: Pick<ProbeResult, 'address' | 'port'>): string {
  return isAddressTarget(given) ? given : authority(found.address, found.port);
}

export async function probe(opts: CommonOptions & { address: string }): Promise<string> {
  const hub = findHub(opts.dataDir);
  step(`asking ${opts.address} whether a Hub answers there`);
  const found = await callHub<ProbeResult>(hub, 'POST', `${POOL}/peers/probe`, { address: opts.address });
  if (opts.json) return `${JSON.stringify(found, null, 2)}\n`;
  const where = authority(found.address, found.port);
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

/**
 * Why a dotted name was taken as an address: it is outside this Hub's tailnet suffix. Said
 * whenever that reading changes what happens, with the other way to write it, so an operator who
 * meant a tailnet name sees at once that it needs the suffix.
 */
function readAsAddress(address: string, tailnetSuffix: string | null): string | null {
  const name = normalizePeerName(address);
  if (!name.ok || tailnetSuffix === null) return null;
  return `${name.name} is not a name on this Hub's tailnet (${tailnetSuffix}), so it is paired with as a LAN host name; a tailnet name is written in full (<host>.${tailnetSuffix})`;
}

export async function pairByAddress(
  opts: CommonOptions & { address: string; pin: string | undefined; yes: boolean; assumeYes: boolean; tailnetSuffix?: string | null },
  selfName: () => Promise<string | null>,
): Promise<string> {
  const why = readAsAddress(opts.address, opts.tailnetSuffix ?? null);
  if (opts.pin === undefined) {
    throw new UsageError(
      `${why === null ? '' : `${why}. `}Pairing by address needs --pin: only the other Hub's answer to a valid PIN tells this Hub its name, so mint one there with \`cihub pool pairing-pin\`; nothing was sent.`,
    );
  }
  if (why !== null) step(why);
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
