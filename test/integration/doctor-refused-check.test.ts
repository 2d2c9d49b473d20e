/**
 * cihub pool doctor run against a Hub that is running but refuses the check the CLI makes before
 * it sends the operator key. Every other command prints the Hub's reason as its one line; doctor
 * reports it as H1 with what to do, and goes on with the checks it can make from its own process,
 * as it does when no Hub runs, but exits 1, not 3: the Hub has not stopped.
 *
 * The refusal is a Host the Hub does not answer to: a hub.json naming the Hub by a name that
 * leads to this machine but is not among the Hub's (written by a Hub from before hub.json
 * recorded the bound address: cli-hub-host.test.ts). No name leads to loopback on every machine
 * except localhost and *.localhost, which a Hub always answers to (isLocalName in
 * src/auth/host-check.ts), so hub.json names a loopback relay instead, which hands each request
 * to the real Hub under such a name. The refusal is then the Hub's own answer, word for word.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { fakeTailscale, runningStatus } from '../helpers/fake-tailscale.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

/** A name the Hub does not answer to (example.com's reserved kind: it can never be the Hub's own). */
const FOREIGN_NAME = 'hub.example';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

/** Forwards every request to the Hub at `hubPort` as if it had been addressed to FOREIGN_NAME. */
async function renamingRelay(hubPort: number): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const upstream = request(
      { host: '127.0.0.1', port: hubPort, method: req.method, path: req.url, headers: { ...req.headers, host: `${FOREIGN_NAME}:${hubPort}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('cihub pool doctor and a running Hub that refuses its check', () => {
  let hub: HubProcess;
  let relay: Awaited<ReturnType<typeof renamingRelay>>;
  before(async () => {
    hub = await startHubProcess();
    relay = await renamingRelay(Number(new URL(hub.url).port));
    const infoPath = join(hub.dataDir, 'hub.json');
    const info = JSON.parse(readFileSync(infoPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(infoPath, JSON.stringify({ ...info, url: relay.url }));
  });
  after(async () => {
    await new Promise((resolve) => relay.server.close(resolve));
    await hub.stop();
  });

  it("fails H1 with the Hub's reason and what to do, judges Tailscale for the Hub's port, and exits 1 without sending the key", async () => {
    const hubPort = Number(new URL(hub.url).port);
    const fake = fakeTailscale({
      status: runningStatus('hub-a'),
      serve: { TCP: { '443': { HTTPS: true } }, Web: { 'hub-a.tail0.ts.net:443': { Handlers: { '/': { Proxy: `http://127.0.0.1:${hubPort}` } } } } },
      operatorUser: userInfo().username,
    });
    const run = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir, env: { PATH: fake.path } });
    assert.equal(run.code, 1, `exit 1: the Hub runs but refused; stderr: ${run.stderr}`);
    assert.equal(run.stderr, '1 check needs action: H1.\n');
    const checks = (JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks;
    assert.deepEqual(checks[0], {
      code: 'H1',
      verdict: 'fail',
      found: `the Hub at ${relay.url} is running but refused the CLI's check, so the operator key was not sent: this Hub does not answer to the name "${FOREIGN_NAME}:${hubPort}"; if it is one of its names, add it to HUB_ALLOWED_HOSTS (HUB_ERR_HOST_NOT_ALLOWED)`,
      fix: "add the name the Hub quotes to HUB_ALLOWED_HOSTS in the Hub's environment and restart the Hub",
    });
    const byCode = Object.fromEntries(checks.map((c) => [c.code, c]));
    assert.deepEqual(
      ['C1', 'C2', 'C3', 'C4'].map((c) => byCode[c]?.verdict),
      ['ok', 'ok', 'ok', 'ok'],
    );
    assert.equal(byCode.C2?.found, `Tailscale Serve publishes this Hub at https://hub-a.tail0.ts.net/ (port ${hubPort})`);
    assert.equal(byCode.P1?.verdict, 'unknown');
    assert.equal(byCode.P1?.found, 'not checked: the Hub could not be asked (H1)');
    assert.deepEqual(
      relay.seen.map((s) => [s.url.split('?')[0], s.headers.authorization]),
      [['/api/hub/boot', undefined]],
    );
  });

  it('is still one sentence for every other command, exit 1', async () => {
    const run = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stderr,
      `The Hub at ${relay.url} refused the CLI's check, so the operator key was not sent: this Hub does not answer to the name "${FOREIGN_NAME}:${new URL(hub.url).port}"; if it is one of its names, add it to HUB_ALLOWED_HOSTS (HUB_ERR_HOST_NOT_ALLOWED).\n`,
    );
  });
});
