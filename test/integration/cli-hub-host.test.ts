/**
 * A Hub told to listen on a host name (HUB_HOST or --host; docs/operator-guide.md, Environment)
 * is still found by the CLI on the same machine. hub.json records the IP its socket is bound
 * to, which the Host check always accepts (an IP literal), rather than the name, which may
 * resolve to another of the machine's addresses when the CLI looks it up (how the CLI words a
 * Host refusal: cli-stale-hub.test.ts). localhost stands for any name: a machine's other
 * names in /etc/hosts differ from host to host, and a test that needs one would only skip.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const LOOPBACK_ADDRESSES = ['127.0.0.1', '::1'];

async function expectFoundByCli(hub: HubProcess): Promise<void> {
  const info = JSON.parse(readFileSync(join(hub.dataDir, 'hub.json'), 'utf8')) as { url: string };
  const address = new URL(info.url).hostname.replace(/^\[|\]$/g, '');
  assert.ok(isIP(address) !== 0 && LOOPBACK_ADDRESSES.includes(address), `hub.json names the bound loopback address, not the name: ${info.url}`);
  const run = await runCli(['pool', 'status', '--json'], { dataDir: hub.dataDir });
  assert.equal(run.code, 0, run.stderr);
}

describe('the CLI and a Hub listening on a host name', () => {
  const hubs: HubProcess[] = [];
  after(async () => {
    await Promise.all(hubs.map((h) => h.stop()));
  });

  it('records the address the name resolved to, and the CLI reaches the Hub there (localhost)', async () => {
    const hub = await startHubProcess({ host: 'localhost' });
    hubs.push(hub);
    await expectFoundByCli(hub);
  });
});
