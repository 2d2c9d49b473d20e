/**
 * Issue 9, #9: after a crash hub.json still names a URL, and whatever listens there now must
 * never receive the operator key. The CLI checks that the recorded process is alive and that
 * the listener answers the boot id hub.json recorded, before it sends any credential. A hub.json
 * with no boot id to check is an older Hub's (hub-without-boot-id.test.ts).
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootProof } from '../../src/auth/boot-proof.js';
import { freshDataDir, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

/** A server that squats on a port and answers every request like a Hub would, boot route included. */
async function squatter(bootId: string): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.setHeader('content-type', 'application/json');
    res.end(req.url?.split('?')[0] === '/api/hub/boot' ? JSON.stringify({ bootId }) : JSON.stringify({ peers: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, seen };
}

/** A pid that existed a moment ago and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function writeStaleHubJson(dataDir: string, port: number, pid: number, bootId: string, bootProof?: true): void {
  writeFileSync(
    join(dataDir, 'hub.json'),
    JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid, startedAt: new Date().toISOString(), bootId, bootProof }),
  );
  writeFileSync(join(dataDir, 'operator.key'), 'cihub_op_secret-that-must-not-leak\n', { mode: 0o600 });
}

describe('the CLI and a hub.json left behind by a crash', () => {
  let fake: Awaited<ReturnType<typeof squatter>>;
  afterEach(async () => {
    await new Promise((resolve) => fake.server.close(resolve));
  });

  it('never sends the key when the recorded process is gone, even if the listener claims the boot id', async () => {
    const dataDir = freshDataDir();
    fake = await squatter('boot-1');
    writeStaleHubJson(dataDir, fake.port, await deadPid(), 'boot-1');
    const run = await runCli(['pool', 'peers'], { dataDir });
    assert.equal(run.code, 3, 'exit 3: no Hub is running');
    assert.match(run.stderr, /^The Hub is not running: .*hub\.json is left over from a Hub that has stopped, so the operator key was not sent/);
    assert.equal(run.stderr.trim().split('\n').length, 1);
    assert.equal(fake.seen.length, 0, "nothing at all is sent to a dead process's URL");
  });

  it('never sends the key to a listener that replays the boot id it learnt while the Hub ran, when the recorded pid lives on in another process', async () => {
    const dataDir = freshDataDir();
    fake = await squatter('boot-learnt');
    // This test's own pid stands for the reused one: alive, and not the Hub.
    writeStaleHubJson(dataDir, fake.port, process.pid, 'boot-learnt', true);
    const run = await runCli(['pool', 'peers'], { dataDir });
    assert.equal(run.code, 1, `exit 1: something answers but cannot be trusted; stderr: ${run.stderr}`);
    assert.match(run.stderr, /^The Hub at http:\/\/127\.0\.0\.1:\d+ did not prove it holds the operator key in .*operator\.key, so the key was not sent: /);
    assert.equal(run.stderr.trim().split('\n').length, 1);
    assert.deepEqual(
      fake.seen.map((s) => s.headers.authorization),
      [undefined],
      'only the boot check reached it, with no credential',
    );
  });

  it('never sends the key when the process lives but another server answers at the URL', async () => {
    const dataDir = freshDataDir();
    fake = await squatter('someone-else');
    // This test process is certainly alive: only the boot id tells the listener apart.
    writeStaleHubJson(dataDir, fake.port, process.pid, 'boot-recorded');
    const run = await runCli(['pool', 'status'], { dataDir });
    assert.equal(run.code, 3, 'exit 3: no Hub is running');
    assert.match(run.stderr, /^The Hub is not running: /);
    assert.deepEqual(
      fake.seen.map((s) => s.url),
      ['/api/hub/boot'],
    );
    assert.ok(
      fake.seen.every((s) => s.headers.authorization === undefined),
      'the boot check carries no credential',
    );
  });
});

describe('the CLI and a running Hub that refuses its check', () => {
  let server: Server;
  const seen: Seen[] = [];
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("passes the Hub's reason on and exits 1, not 3: the Hub has not stopped, and the key is still not sent", async () => {
    const dataDir = freshDataDir();
    // What a Hub answers a Host it does not count among its names (src/http/edge.ts).
    const refusal = {
      error: { code: 'HUB_ERR_HOST_NOT_ALLOWED', message: 'this Hub does not answer to the name "box.example:5002". Add it to HUB_ALLOWED_HOSTS.' },
    };
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify(refusal));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    writeStaleHubJson(dataDir, (server.address() as { port: number }).port, process.pid, 'boot-recorded');
    const run = await runCli(['pool', 'status'], { dataDir });
    assert.equal(run.code, 1, `exit 1: a refusal; stderr: ${run.stderr}`);
    assert.match(run.stderr, /^The Hub at http:\/\/127\.0\.0\.1:\d+ refused the CLI's check, so the operator key was not sent: /);
    assert.match(run.stderr, /does not answer to the name "box\.example:5002"; Add it to HUB_ALLOWED_HOSTS \(HUB_ERR_HOST_NOT_ALLOWED\)\.$/m);
    assert.doesNotMatch(run.stderr, /not running|stopped/);
    assert.equal(run.stderr.trim().split('\n').length, 1);
    assert.deepEqual(
      seen.map((s) => [s.url, s.headers.authorization]),
      [['/api/hub/boot', undefined]],
    );
  });
});

describe('the CLI and a Hub that is running', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub.stop();
  });

  it('finds the boot id hub.json recorded, proves the key only to callers on this machine, and talks to the Hub', async () => {
    const info = JSON.parse(readFileSync(join(hub.dataDir, 'hub.json'), 'utf8')) as { bootId: string };
    const boot = await fetch(`${hub.url}/api/hub/boot`);
    assert.deepEqual(await boot.json(), { bootId: info.bootId });
    const challenge = 'c'.repeat(64);
    const proven = await fetch(`${hub.url}/api/hub/boot?challenge=${challenge}`);
    const key = readFileSync(join(hub.dataDir, 'operator.key'), 'utf8').trim();
    assert.deepEqual(await proven.json(), { bootId: info.bootId, proof: bootProof(key, info.bootId, challenge) });
    const malformed = await fetch(`${hub.url}/api/hub/boot?challenge=not-hex`);
    assert.equal(malformed.status, 400);
    assert.match(((await malformed.json()) as { error: { message: string } }).error.message, /^challenge must be given once, as 64 lower-case hex digits/);
    // tailscale serve reaches the Hub from loopback on behalf of a caller anywhere on the tailnet.
    const forwarded = await fetch(`${hub.url}/api/hub/boot?challenge=${challenge}`, { headers: { 'x-forwarded-for': '100.101.1.9' } });
    assert.equal(forwarded.status, 403);
    assert.equal(((await forwarded.json()) as { error: { code: string } }).error.code, 'HUB_ERR_LOCAL_CALLERS_ONLY');
    const run = await runCli(['pool', 'peers', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { peers: [] });
  });
});

describe('the CLI and a Hub that runs but does not answer (suspended, as Ctrl-Z leaves `cihub serve`)', () => {
  let hub: HubProcess;
  let pid: number;
  before(async () => {
    hub = await startHubProcess();
    pid = hub.child.pid!;
    hub.child.kill('SIGSTOP');
  });
  after(async () => {
    hub.child.kill('SIGCONT');
    await hub.stop();
  });

  it('names the process and how to resume or restart it, not "start it": a second `cihub serve` would be refused', async () => {
    const run = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(run.code, 3, `exit 3: nothing answers for the data dir; stderr: ${run.stderr}`);
    assert.match(
      run.stderr,
      new RegExp(`^The Hub for the data dir .* is still running \\(pid ${pid}\\) but did not answer at ${hub.url} \\(no answer within 5 s\\)\\. `),
    );
    assert.match(run.stderr, new RegExp(`resume it \\(fg, or kill -CONT ${pid}\\)`));
    assert.doesNotMatch(run.stderr, /Start it with/);
    assert.equal(run.stderr.trim().split('\n').length, 1);
  });

  it('gives doctor the same finding and fix for H1, and reads the Hub-only checks as not asked rather than not running', async () => {
    const run = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 3, run.stderr);
    const { checks } = JSON.parse(run.stdout) as { checks: { code: string; verdict: string; found: string; fix: string | null }[] };
    const h1 = checks.find((c) => c.code === 'H1')!;
    assert.equal(h1.verdict, 'fail');
    assert.match(h1.found, new RegExp(`is still running \\(pid ${pid}\\) but did not answer`));
    assert.match(h1.fix ?? '', new RegExp(`kill -CONT ${pid}`));
    assert.equal(checks.find((c) => c.code === 'P1')!.found, 'not checked: the Hub could not be asked (H1)');
  });
});

describe('the CLI and a Hub whose operator.key was replaced after it started', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess();
    // The Hub read its key at start; the file now holds another one (a restored backup, say).
    writeFileSync(join(hub.dataDir, 'operator.key'), 'cihub_op_another-key\n', { mode: 0o600 });
  });
  after(async () => {
    await hub.stop();
  });

  it('names the file and says to restart the Hub, rather than telling the operator to send what it already sent', async () => {
    const run = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(run.code, 1, `exit 1: the Hub runs and refused; stderr: ${run.stderr}`);
    assert.match(
      run.stderr,
      /^The Hub at http:\/\/127\.0\.0\.1:\d+ did not prove it holds the operator key in .*\/operator\.key, so the key was not sent: the file no longer holds the key this Hub started with/,
    );
    // The Hub's data dir is not the default one, so the command to start it must name it.
    assert.match(run.stderr, /Restart the Hub \(`cihub serve --data-dir \S+`, or its service manager\) so it reads operator\.key again/);
    assert.doesNotMatch(run.stderr, /Authorization: Bearer/);
    assert.equal(run.stderr.trim().split('\n').length, 1);
  });

  it('lets doctor go on with the checks it can make without the Hub, with the finding as H1', async () => {
    const run = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 1, run.stderr);
    const { checks } = JSON.parse(run.stdout) as { checks: { code: string; verdict: string; found: string; fix: string | null }[] };
    const h1 = checks.find((c) => c.code === 'H1')!;
    assert.equal(h1.verdict, 'fail');
    assert.match(h1.found, /did not prove it holds the operator key in .*\/operator\.key/);
    assert.match(h1.fix ?? '', /^restart the Hub/);
  });
});
