import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTailscaleStatusDocument } from './tailscale-status.js';

const running = (extra: Record<string, unknown>) => ({
  BackendState: 'Running',
  Self: { DNSName: 'hub-a.tail0.ts.net.', HostName: 'hub-a' },
  CurrentTailnet: { Name: 'operator@example.com', MagicDNSSuffix: 'tail0.ts.net', MagicDNSEnabled: true },
  ...extra,
});

describe("this node's Tailscale addresses, as the dashboard shows them", () => {
  const table: { name: string; doc: Record<string, unknown>; ips: string[] }[] = [
    { name: 'the top-level TailscaleIPs', doc: running({ TailscaleIPs: ['100.101.1.2', 'fd7a:115c:a1e0::1'] }), ips: ['100.101.1.2', 'fd7a:115c:a1e0::1'] },
    {
      name: 'IPv6 listed first: IPv4 is still shown first',
      doc: running({ TailscaleIPs: ['fd7a:115c:a1e0::1', '100.101.1.2'] }),
      ips: ['100.101.1.2', 'fd7a:115c:a1e0::1'],
    },
    { name: "only Self's TailscaleIPs", doc: running({ Self: { DNSName: 'hub-a.tail0.ts.net.', TailscaleIPs: ['100.70.8.9'] } }), ips: ['100.70.8.9'] },
    { name: 'logged out: null', doc: { BackendState: 'NeedsLogin', TailscaleIPs: null, Self: { DNSName: '', TailscaleIPs: null } }, ips: [] },
    { name: 'entries that are not addresses are dropped', doc: running({ TailscaleIPs: ['100.101.1.2', '<script>', '999.1.1.1'] }), ips: ['100.101.1.2'] },
    { name: 'a list past any real node is not read', doc: running({ TailscaleIPs: Array.from({ length: 17 }, (_, i) => `100.101.1.${i}`) }), ips: [] },
  ];
  for (const c of table) it(c.name, () => assert.deepEqual(parseTailscaleStatusDocument(c.doc).tailscaleIps, c.ips));
});
