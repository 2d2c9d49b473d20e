import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPermissionRefusal, parseServeConfig, reachableFromLoopback, serveVerdict, type ServeVerdict } from './tailscale-serve.js';

const NAME = 'hub-a.tail0.ts.net';
const site = (hostPort: string, handlers: Record<string, unknown>) => ({ TCP: { '443': { HTTPS: true } }, Web: { [hostPort]: { Handlers: handlers } } });

describe('serveVerdict', () => {
  // The Hub listens on 127.0.0.1 unless a case says otherwise.
  const cases: { name: string; json: unknown; verdict: ServeVerdict; hubHost?: string }[] = [
    { name: 'an empty config ({})', json: {}, verdict: { kind: 'absent' } },
    {
      name: 'the root proxied to the Hub port on 127.0.0.1',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }),
      verdict: { kind: 'publishes' },
    },
    { name: 'on localhost', json: site(`${NAME}:443`, { '/': { Proxy: 'http://localhost:5002' } }), verdict: { kind: 'publishes' } },
    { name: 'on [::1], for a Hub on ::1', json: site(`${NAME}:443`, { '/': { Proxy: 'http://[::1]:5002' } }), verdict: { kind: 'publishes' }, hubHost: '::1' },
    {
      name: 'on [::1], for a Hub on 127.0.0.1 only: the connection finds nothing there',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://[::1]:5002' } }),
      verdict: { kind: 'other', target: 'http://[::1]:5002' },
    },
    {
      name: 'on 127.0.0.1, for a Hub on ::1 only (cihub serve --host ::1)',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }),
      verdict: { kind: 'other', target: 'http://127.0.0.1:5002' },
      hubHost: '::1',
    },
    {
      name: 'on 127.0.0.1, for a Hub on 127.0.0.2',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }),
      verdict: { kind: 'other', target: 'http://127.0.0.1:5002' },
      hubHost: '127.0.0.2',
    },
    {
      name: 'on 127.0.0.1, for a Hub on 0.0.0.0',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }),
      verdict: { kind: 'publishes' },
      hubHost: '0.0.0.0',
    },
    {
      name: 'on 127.0.0.1, for a Hub on :: (dual-stack)',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }),
      verdict: { kind: 'publishes' },
      hubHost: '::',
    },
    {
      name: 'on localhost, for a Hub on ::1',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://localhost:5002' } }),
      verdict: { kind: 'publishes' },
      hubHost: '::1',
    },
    {
      name: 'a bare port target (tailscale serve 5002 writes it out in full, older ones did not)',
      json: site(`${NAME}:443`, { '/': { Proxy: '127.0.0.1:5002' } }),
      verdict: { kind: 'publishes' },
    },
    {
      name: 'the root proxied to another port',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:11434' } }),
      verdict: { kind: 'other', target: 'http://127.0.0.1:11434' },
    },
    {
      name: 'the root serving files',
      json: site(`${NAME}:443`, { '/': { Path: '/srv/www' } }),
      verdict: { kind: 'other', target: 'a handler that is not a proxy' },
    },
    { name: 'only a sub-path is served', json: site(`${NAME}:443`, { '/grafana': { Proxy: 'http://127.0.0.1:3000' } }), verdict: { kind: 'absent' } },
    { name: 'another port than 443', json: site(`${NAME}:8443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }), verdict: { kind: 'absent' } },
    { name: "another machine's name", json: site('other.tail0.ts.net:443', { '/': { Proxy: 'http://127.0.0.1:5002' } }), verdict: { kind: 'absent' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const config = parseServeConfig(c.json);
      assert.ok(config);
      assert.deepEqual(serveVerdict(config, NAME, { host: c.hubHost ?? '127.0.0.1', port: 5002 }), c.verdict);
    });
  }
  it('a document that is not a serve config is refused', () => assert.equal(parseServeConfig('No serve config'), null));
});

describe('reachableFromLoopback: where the Hub can listen and still be published at 127.0.0.1', () => {
  for (const host of ['127.0.0.1', 'localhost', '0.0.0.0', '::']) it(`${host}: reachable`, () => assert.equal(reachableFromLoopback(host), true));
  for (const host of ['::1', '127.0.0.2', '192.168.1.42', 'hub.example.test'])
    it(`${host}: not reachable`, () => assert.equal(reachableFromLoopback(host), false));
});

describe('isPermissionRefusal', () => {
  it("reads Tailscale's refusals, and nothing else, as a question of who asked", () => {
    assert.equal(isPermissionRefusal('sending serve config: Access denied: serve config denied'), true);
    assert.equal(isPermissionRefusal("Use 'sudo tailscale serve' or 'tailscale set --operator=$USER'"), true);
    assert.equal(isPermissionRefusal('serve config: port 443 already in use'), false);
  });
});
