import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Agent, request } from './undici-lean.js';

let server: Server;
let origin: string;
const seen: { method: string; url: string; body: string }[] = [];
before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body });
      res.end('answered');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

describe('the lean undici', () => {
  it('sends a GET with its query through the dispatcher it is given', async () => {
    const agent = new Agent();
    const res = await request(`${origin}/api/tags?x=1`, { dispatcher: agent });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'answered');
    assert.deepEqual(seen.at(-1), { method: 'GET', url: '/api/tags?x=1', body: '' });
    await agent.close();
  });

  it('sends a body with the method named, through the global dispatcher when none is given', async () => {
    const res = await request(new URL(`${origin}/v1/chat`), { method: 'POST', body: '{"a":1}' });
    await res.body.dump();
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/v1/chat', body: '{"a":1}' });
  });

  it("keeps undici's fetch half and Node's bundled undici out of a Hub process", () => {
    const system = fileURLToPath(new URL('../system.js', import.meta.url));
    const serve = fileURLToPath(new URL('../cli/commands/serve.js', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(system)});
      await import(${JSON.stringify(serve)});
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        undiciIndex: cache.some((k) => /undici[\\\\/]index\\.js$/.test(k)),
        undiciAgent: cache.some((k) => /undici[\\\\/]lib[\\\\/]dispatcher[\\\\/]agent\\.js$/.test(k)),
        bundled: process.moduleLoadList.includes('NativeModule internal/deps/undici/undici'),
      }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, boolean>;
    assert.deepEqual(out, { undiciIndex: false, undiciAgent: true, bundled: false });
  });
});
