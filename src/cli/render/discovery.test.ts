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
    const text = renderDiscovery({ candidates: [], notHubs: [{ nodeFqdn: 'nas.tail0.ts.net', os: 'linux', online: false, reason: 'ECONNREFUSED' }], excludedPaired: 2, notProbed: 0, directories });
    assert.match(text, /^No Hubs found: no unpaired Hub this Hub can name answered as a Hub\.$/m);
    assert.match(text, /^ {2}nas\.tail0\.ts\.net\s+linux\s+offline\s+ECONNREFUSED$/m);
    assert.match(text, /^2 named Hubs are left out: already paired or pending here \(cihub pool peers\)\.$/m);
    assert.match(text, /^ {2}Tailscale daemon peer map: 3 named$/m);
    assert.match(text, /^ {2}Tailscale Admin API: not configured \(set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET\)$/m);
    assert.match(text, /cihub pool probe <address>, then cihub pool pair <address> --pin <digits>/);
  });

  it('lists Hubs with their chips and the pair command, and no address hint', () => {
    const text = renderDiscovery({ candidates: [{ nodeFqdn: 'hub-b.tail0.ts.net', displayName: 'hub-b', deviceId: null, os: 'macOS', online: true, poolProtocol: 2 }], notHubs: [], excludedPaired: 0, notProbed: 0, directories });
    assert.match(text, /^1 Hub you can pair with:$/m);
    assert.match(text, /^ {2}hub-b\.tail0\.ts\.net\s+macOS\s+online/m);
    assert.match(text, /cihub pool pair <name>/);
    assert.doesNotMatch(text, /cihub pool probe/);
  });
});
