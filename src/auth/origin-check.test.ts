import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { checkOrigin } from './origin-check.js';

interface Row {
  readonly name: string;
  readonly remote: string | undefined;
  readonly headers?: IncomingHttpHeaders;
  readonly tailnetRequiresKey?: boolean;
  readonly inside: boolean;
  /** Part of the refusal's reason, when refused. */
  readonly why?: RegExp;
}

const DOCKER_BRIDGE = '172.17.0.1';

function table(title: string, rows: readonly Row[]): void {
  describe(title, () => {
    for (const row of rows) {
      it(row.name, () => {
        const verdict = checkOrigin(row.remote, row.headers ?? {}, row.tailnetRequiresKey ?? false);
        assert.equal(verdict.inside, row.inside);
        if (!verdict.inside && row.why) assert.match(verdict.why, row.why);
      });
    }
  });
}

table('checkOrigin: the source address', [
  { name: 'admits loopback with no headers', remote: '127.0.0.1', inside: true },
  { name: 'admits IPv6 loopback', remote: '::1', inside: true },
  { name: 'admits a container on the Docker bridge', remote: DOCKER_BRIDGE, inside: true },
  { name: 'admits a v4-mapped private source', remote: '::ffff:10.0.0.4', inside: true },
  { name: 'refuses a public source', remote: '198.51.100.7', inside: false, why: /outside/ },
  { name: 'refuses a v4-mapped public source', remote: '::ffff:198.51.100.7', inside: false, why: /outside/ },
  { name: 'refuses when the source address is unknown', remote: undefined, inside: false, why: /could not be read/ },
  { name: 'admits a tailnet source', remote: '100.100.1.2', inside: true },
  { name: 'admits a tailnet IPv6 source', remote: 'fd7a:115c:a1e0::42', inside: true },
  { name: 'refuses a tailnet source when tailnet callers need a key', remote: '100.100.1.2', tailnetRequiresKey: true, inside: false, why: /require-key/ },
  {
    name: 'refuses a tailnet IPv6 source when tailnet callers need a key',
    remote: 'fd7a:115c:a1e0::42',
    tailnetRequiresKey: true,
    inside: false,
    why: /require-key/,
  },
  { name: 'still admits loopback when tailnet callers need a key', remote: '127.0.0.1', tailnetRequiresKey: true, inside: true },
  { name: 'still admits a private source when tailnet callers need a key', remote: DOCKER_BRIDGE, tailnetRequiresKey: true, inside: true },
]);

const provenance = ['cf-ray', 'cf-connecting-ip', 'cf-ipcountry', 'cf-visitor', 'cdn-loop', 'true-client-ip', 'x-real-ip'];
table(
  'checkOrigin: reverse-proxy provenance refuses even a private source',
  provenance.map((header) => ({
    name: `refuses a request carrying ${header}`,
    remote: DOCKER_BRIDGE,
    headers: { [header]: '8a1b2c3d4e5f-AMS' },
    inside: false,
    why: new RegExp(header),
  })),
);

table('checkOrigin: X-Forwarded-For hops', [
  { name: 'refuses a public hop behind a private proxy', remote: DOCKER_BRIDGE, headers: { 'x-forwarded-for': '203.0.113.50' }, inside: false, why: /outside/ },
  {
    name: 'refuses a chain with one public hop among private ones',
    remote: DOCKER_BRIDGE,
    headers: { 'x-forwarded-for': '10.0.0.5, 203.0.113.50, 172.18.0.3' },
    inside: false,
  },
  { name: 'admits a chain of private hops', remote: DOCKER_BRIDGE, headers: { 'x-forwarded-for': '10.0.0.5, 172.18.0.3,192.168.1.9' }, inside: true },
  { name: 'admits a tailnet hop behind tailscale serve', remote: '127.0.0.1', headers: { 'x-forwarded-for': '100.88.1.9' }, inside: true },
  {
    name: 'refuses a tailnet hop when tailnet callers need a key',
    remote: '127.0.0.1',
    headers: { 'x-forwarded-for': '100.88.1.9' },
    tailnetRequiresKey: true,
    inside: false,
    why: /require-key/,
  },
  {
    name: 'refuses a hop that is not an address',
    remote: DOCKER_BRIDGE,
    headers: { 'x-forwarded-for': 'evil.example' },
    inside: false,
    why: /could not be read/,
  },
  { name: 'ignores empty entries in the list', remote: DOCKER_BRIDGE, headers: { 'x-forwarded-for': '10.0.0.5,,' }, inside: true },
]);

table('checkOrigin: the Forwarded header', [
  { name: 'refuses a public for=', remote: DOCKER_BRIDGE, headers: { forwarded: 'for=203.0.113.60;proto=https' }, inside: false },
  { name: 'refuses a public for= with a port', remote: DOCKER_BRIDGE, headers: { forwarded: 'for="203.0.113.60:443"' }, inside: false },
  { name: 'refuses a bracketed public IPv6 for= with a port', remote: DOCKER_BRIDGE, headers: { forwarded: 'for="[2001:db8:cafe::17]:4711"' }, inside: false },
  { name: 'refuses the public element of a list', remote: DOCKER_BRIDGE, headers: { forwarded: 'for=10.0.0.4, For=198.51.100.17' }, inside: false },
  { name: 'admits a private for= with a port', remote: DOCKER_BRIDGE, headers: { forwarded: 'for="10.0.0.4:55012";proto=http' }, inside: true },
  { name: 'admits a bracketed tailnet IPv6 for=', remote: DOCKER_BRIDGE, headers: { forwarded: 'for="[fd7a:115c:a1e0::9]"' }, inside: true },
  { name: 'refuses an obfuscated for= it cannot judge', remote: DOCKER_BRIDGE, headers: { forwarded: 'for=_hidden' }, inside: false },
  { name: 'admits a Forwarded header that names no client', remote: DOCKER_BRIDGE, headers: { forwarded: 'proto=https;host=hub.local' }, inside: true },
]);
