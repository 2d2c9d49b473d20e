/**
 * `cihub pool discover` as text: the Hubs this Hub can name and pair with, the named devices
 * that did not answer as a Hub (the empty state's help), and what each directory contributed.
 */
import type { DirectoryReport, Discovery, LanDiscovery } from '../../discovery/discovery-service.js';
import { table } from './pool-status.js';

const DIRECTORY_LABEL: Readonly<Record<DirectoryReport['directory'], string>> = {
  'tailscale-daemon': 'Tailscale daemon peer map',
  'tailscale-admin-api': 'Tailscale Admin API',
  portal: 'CI Portal registry',
};

function chip(online: boolean | null): string {
  return online === null ? '' : online ? 'online' : 'offline';
}

export function directoryLine(d: DirectoryReport): string {
  const what = d.state === 'ok' ? `${d.named} named` : d.state.replace('-', ' ');
  return `${DIRECTORY_LABEL[d.directory]}: ${what}${d.detail === null ? '' : ` (${d.detail})`}`;
}

/**
 * Hubs heard on the LAN: listed as Unverified with the address they spoke from, and no pair
 * command, since anything on the network can announce itself (guide, "How Hubs find each other").
 */
function lanLines(lan: LanDiscovery | undefined): string[] {
  if (lan === undefined || lan.state === 'off') return [];
  if (lan.state === 'failed') return ['', `LAN discovery (mDNS) is on but could not listen: ${lan.detail ?? 'no reason given'}.`];
  const lines: string[] = [];
  if (lan.rows.length > 0) {
    lines.push('', 'Unverified: heard on the local network (mDNS) only. Anything there can announce itself, so these cannot be paired from this list:');
    lines.push(
      ...table(
        lan.rows.map((r) => [
          `  ${r.displayName}`,
          r.port === null ? r.address : hostPort(r.address, r.port),
          r.claimedName === null ? 'Unverified' : `Unverified, claims ${r.claimedName}`,
        ]),
      ),
    );
    lines.push('', 'To add one, check it with cihub pool probe <address>, then pair by address with a PIN minted on that Hub.');
  }
  if (lan.coveredByTailnet > 0)
    lines.push(
      `${lan.coveredByTailnet} Hub${lan.coveredByTailnet === 1 ? '' : 's'} heard on the LAN ${lan.coveredByTailnet === 1 ? 'is' : 'are'} left out: the tailnet already names ${lan.coveredByTailnet === 1 ? 'it' : 'them'}.`,
    );
  if (lan.notListed > 0)
    lines.push(`${lan.notListed} more announcement${lan.notListed === 1 ? ' was' : 's were'} heard on the LAN and not listed (too many in one scan).`);
  if (lines.length === 0) lines.push('', 'LAN discovery (mDNS): no other Hub answered on the local network.');
  return lines;
}

function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

export function renderDiscovery(found: Discovery): string {
  const lines: string[] = [];
  if (found.candidates.length === 0) {
    lines.push('No Hubs found: no unpaired Hub this Hub can name answered as a Hub.');
  } else {
    lines.push(`${found.candidates.length} Hub${found.candidates.length === 1 ? '' : 's'} you can pair with:`);
    lines.push(...table(found.candidates.map((c) => [`  ${c.nodeFqdn}`, c.os ?? '', chip(c.online), c.source === 'portal' ? 'named by Portal' : ''])));
    lines.push('', 'To pair: cihub pool pair <name> (add --pin <digits> with a PIN minted there by cihub pool pairing-pin).');
  }
  if (found.notHubs.length > 0) {
    lines.push('', 'Named but not answering as a Hub (off, not a Hub, or not published at its name):');
    lines.push(...table(found.notHubs.map((d) => [`  ${d.nodeFqdn}`, d.os ?? '', chip(d.online), d.reason])));
  }
  if (found.excludedPaired > 0)
    lines.push(
      '',
      `${found.excludedPaired} named Hub${found.excludedPaired === 1 ? ' is' : 's are'} left out: already paired or pending here (cihub pool peers).`,
    );
  if (found.notProbed > 0) lines.push(`${found.notProbed} more named device${found.notProbed === 1 ? ' was' : 's were'} not probed (too many in one scan).`);
  lines.push(...lanLines(found.lan));
  lines.push('', 'Directories:', ...found.directories.map((d) => `  ${directoryLine(d)}`));
  if (found.candidates.length === 0)
    lines.push('', 'A Hub no directory names can still be paired by address: cihub pool probe <address>, then cihub pool pair <address> --pin <digits>.');
  return `${lines.join('\n')}\n`;
}
