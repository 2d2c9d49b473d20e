/**
 * `cihub pool discover` as text: the Hubs this Hub can name and pair with, the named devices
 * that did not answer as a Hub (the empty state's help), and what each directory contributed.
 */
import type { DirectoryReport, Discovery } from '../../discovery/discovery-service.js';
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
  if (found.excludedPaired > 0) lines.push('', `${found.excludedPaired} named Hub${found.excludedPaired === 1 ? ' is' : 's are'} left out: already paired or pending here (cihub pool peers).`);
  if (found.notProbed > 0) lines.push(`${found.notProbed} more named device${found.notProbed === 1 ? ' was' : 's were'} not probed (too many in one scan).`);
  lines.push('', 'Directories:', ...found.directories.map((d) => `  ${directoryLine(d)}`));
  if (found.candidates.length === 0) lines.push('', 'A Hub no directory names can still be paired by address: cihub pool probe <address>, then cihub pool pair <address> --pin <digits>.');
  return `${lines.join('\n')}\n`;
}
