import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Discovery } from '../../discovery/discovery-service.js';
import { renderDiscovery } from './discovery.js';

const directories: Discovery['directories'] = [
  { directory: 'tailscale-daemon', state: 'ok', named: 3, detail: null },
  { directory: 'tailscale-admin-api', state: 'not-configured', named: null, detail: 'set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET' },
  { directory: 'portal', state: 'unavailable', named: null, detail: 'not registered' },
];

describe('renderDiscovery', () => {
  it('the empty state says nothing answered, lists what did not, and offers pairing by address', () => {
    const text = renderDiscovery({
      candidates: [],
      notHubs: [{ nodeFqdn: 'nas.tail0.ts.net', os: 'linux', online: false, reason: 'ECONNREFUSED' }],
      excludedPaired: 2,
      notProbed: 0,
      directories,
    });
    assert.match(text, /^No Hubs found: no unpaired Hub this Hub can name answered as a Hub\.$/m);
    assert.match(text, /^ {2}nas\.tail0\.ts\.net\s+linux\s+offline\s+ECONNREFUSED$/m);
    assert.match(text, /^2 named Hubs are left out: already paired or pending here \(cihub pool peers\)\.$/m);
    assert.match(text, /^ {2}Tailscale daemon peer map: 3 named$/m);
    assert.match(text, /^ {2}Tailscale Admin API: not configured \(set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET\)$/m);
    assert.match(text, /cihub pool probe <address>, then cihub pool pair <address> --pin <digits>/);
  });

  it('lists Hubs with their chips and the pair command, and no address hint', () => {
    const text = renderDiscovery({
      candidates: [{ nodeFqdn: 'hub-b.tail0.ts.net', displayName: 'hub-b', deviceId: null, os: 'macOS', online: true, poolProtocol: 2 }],
      notHubs: [],
      excludedPaired: 0,
      notProbed: 0,
      directories,
    });
    assert.match(text, /^1 Hub you can pair with:$/m);
    assert.match(text, /^ {2}hub-b\.tail0\.ts\.net\s+macOS\s+online/m);
    assert.match(text, /cihub pool pair <name>/);
    assert.doesNotMatch(text, /cihub pool probe/);
  });

  it('prints Hubs heard on the LAN as Unverified, with their address and no pair command', () => {
    const lan = {
      state: 'ok' as const,
      detail: null,
      coveredByTailnet: 1,
      notListed: 0,
      rows: [
        { source: 'mdns' as const, verified: false as const, displayName: 'studio', claimedName: 'studio.tail0.ts.net', address: '192.168.1.42', port: 5002 },
      ],
    };
    const text = renderDiscovery({ candidates: [], notHubs: [], excludedPaired: 0, notProbed: 0, directories, lan });
    assert.match(text, /^Unverified: heard on the local network \(mDNS\) only/m);
    assert.match(text, /^ {2}studio\s+192\.168\.1\.42:5002\s+Unverified, claims studio\.tail0\.ts\.net$/m);
    assert.match(text, /cihub pool probe <address>/);
    assert.doesNotMatch(text, /cihub pool pair studio/);
    assert.match(text, /^1 Hub heard on the LAN is left out: the tailnet already names it\.$/m);
  });

  it('says nothing about the LAN while LAN discovery is off, and says why when it could not listen', () => {
    const off = renderDiscovery({
      candidates: [],
      notHubs: [],
      excludedPaired: 0,
      notProbed: 0,
      directories,
      lan: { state: 'off', detail: null, rows: [], coveredByTailnet: 0, notListed: 0 },
    });
    assert.doesNotMatch(off, /mDNS|Unverified/);
    const failed = renderDiscovery({
      candidates: [],
      notHubs: [],
      excludedPaired: 0,
      notProbed: 0,
      directories,
      lan: { state: 'failed', detail: 'bind EADDRINUSE', rows: [], coveredByTailnet: 0, notListed: 0 },
    });
    assert.match(failed, /^LAN discovery \(mDNS\) is on but could not listen: bind EADDRINUSE\.$/m);
  });
});
