import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateOperatorKey, writeHubInfo } from '../config/data-dir.js';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import { RoutingLog } from '../routing-log/ring.js';
import { ManualClock } from '../util/clock.js';
import { buildPoolStatus, type PoolStatus } from '../status/pool-status.js';
import { statusInputs } from '../status/status-inputs.fixture.js';
import { poolDoctor } from './commands/doctor.js';
import { poolContextCap } from './commands/node-limits.js';
import { poolStatus } from './commands/pool.js';
import { fetchPoolStatus } from './fetch-pool-status.js';
import { CliError, findHub } from './hub-client.js';
import { CIHUB_VERSION } from './version.js';

/** What this version's Hub answers on GET /status: no engines, no peers. */
const CURRENT: PoolStatus = buildPoolStatus(
  statusInputs({ identity: { nodeUuid: '11111111-2222-3333-4444-555555555555', fingerprint: null, identityError: null, identityCause: null } }),
);

const EMPTY_LOG = new RoutingLog({ size: 1, clock: new ManualClock(), bootId: 'shape-boot' }).page();

/** The same document from a Hub of a release before contextCaps: the field is simply not there. */
const OLDER: Omit<PoolStatus, 'contextCaps'> = (({ contextCaps: _dropped, ...rest }) => rest)(CURRENT);

describe('GET /status from a Hub still running a release before this CLI', () => {
  let dir: string;
  let server: Server;
  let answer: unknown;
  const patched: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cihub-status-shape-'));
    const key = loadOrCreateOperatorKey(dir);
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/hub/boot') return void res.end(JSON.stringify({ bootId: 'shape-boot' }));
      if (req.headers.authorization !== `Bearer ${key}`) return void res.writeHead(401).end('{"error":{"code":"HUB_ERR_UNAUTHORIZED","message":"no"}}');
      if (req.method === 'PATCH') {
        patched.push(req.url ?? '');
        return void res.end(JSON.stringify(DEFAULT_SETTINGS));
      }
      if (req.url === '/api/inference/pool/status') return void res.end(JSON.stringify(answer));
      if (req.url?.startsWith('/api/inference/pool/routing-log')) return void res.end(JSON.stringify(EMPTY_LOG));
      res.writeHead(404).end('{"error":{"code":"HUB_ERR_NOT_FOUND","message":"no such route"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // hub.json names this CLI's version, so what is under test is the document alone, not the version warning.
    writeHubInfo(dir, {
      url: `http://127.0.0.1:${port}`,
      port,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      bootId: 'shape-boot',
      version: CIHUB_VERSION,
    });
  });
  beforeEach(() => {
    answer = OLDER;
    patched.length = 0;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const olderHub = new RegExp(
    `^The Hub at http://127\\.0\\.0\\.1:\\d+ is older than this cihub \\(${CIHUB_VERSION.replace(/\./g, '\\.')}\\): its status has no contextCaps, so this CLI cannot read it\\. Restart the Hub with \`cihub serve\` \\(or its service manager\\) so the two agree\\.$`,
  );
  const refusedAs = (pattern: RegExp) => (err: unknown) => err instanceof CliError && pattern.test(err.message);

  it('`pool status` says the Hub is older and needs a restart, rather than crashing on the missing field', async () => {
    await assert.rejects(poolStatus({ dataDir: dir }), refusedAs(olderHub));
  });

  it('`pool status --json` says the same, rather than printing a document without the field', async () => {
    await assert.rejects(poolStatus({ dataDir: dir, json: true }), refusedAs(olderHub));
  });

  it('`pool doctor` says the same, rather than crashing in its context-cap check', async () => {
    await assert.rejects(poolDoctor({ dataDir: dir, env: {} }), refusedAs(olderHub));
  });

  it('a command that changed something and reads back only older fields still reports the change', async () => {
    const out = await poolContextCap({ dataDir: dir, value: '8192', yes: true, assumeYes: false });
    assert.match(out, /^This node's context cap is num_ctx /);
    assert.deepEqual(patched, ['/api/inference/pool/settings']);
  });

  it('a document with contextCaps is handed over as it came', async () => {
    answer = CURRENT;
    assert.deepEqual(await fetchPoolStatus(findHub(dir)), CURRENT);
  });

  it('a document from a Hub with contextCaps but before startupWarnings reads as one that set nothing aside', async () => {
    answer = (({ startupWarnings: _dropped, ...rest }) => rest)(CURRENT);
    assert.deepEqual((await fetchPoolStatus(findHub(dir))).startupWarnings, []);
  });

  it('an unusable identity from a Hub before identityFix gets the fix that Hub gave, not "Fix: undefined"', async () => {
    const identity = (nodeUuid: string | null) => ({ nodeUuid, fingerprint: null, identityError: 'the file is empty' });
    answer = { ...CURRENT, localNode: { ...CURRENT.localNode, identity: identity(null) } };
    assert.match((await fetchPoolStatus(findHub(dir))).localNode.identity?.identityFix ?? '', /^write a secret into identity\.secret/);
    answer = { ...CURRENT, localNode: { ...CURRENT.localNode, identity: identity('11111111-2222-3333-4444-555555555555') } };
    assert.match((await fetchPoolStatus(findHub(dir))).localNode.identity?.identityFix ?? '', /^cihub pool rotate-identity/);
    assert.doesNotMatch(await poolStatus({ dataDir: dir }), /Fix: undefined/);
  });

  it('startupWarnings that are not a list of sentences are refused by name, not printed', async () => {
    answer = { ...CURRENT, startupWarnings: [{ text: 'x' }] };
    await assert.rejects(fetchPoolStatus(findHub(dir)), refusedAs(/startupWarnings is not a list of sentences/));
  });
});
