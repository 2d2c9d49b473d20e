/**
 * What an operator reads: GET /status (this node's engines, their models and load), the open
 * /identify probe, and the routing log over HTTP (order, paging with an inclusive cursor,
 * refusals of bad queries, the summary and the ring bound), then the same through
 * `cihub pool status` and `cihub pool log`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const SHARED = 'qwen3:8b';
const SLOW = 'slow:1b';
const LOG = '/api/inference/pool/routing-log';
const STATUS = '/api/inference/pool/status';

interface ErrorBody {
  error: { code: string; message: string };
}

/** A non-streamed OpenAI chat, which every engine kind speaks; resolves with the request id once the answer is complete. */
async function chat(hub: HubProcess, model: string, prompt: string): Promise<string> {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }] }),
  });
  const text = await res.body.text();
  assert.equal(res.statusCode, 200, text);
  return String(res.headers['x-hub-pool-request-id']);
}

async function page(hub: HubProcess, query = ''): Promise<RoutingLogPage> {
  const res = await hub.api<RoutingLogPage>('GET', `${LOG}${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
}

/**
 * The structure of a JSON value with its leaves replaced by their types. A list of plain values
 * is just a list: its length is data, not structure (an engine's loaded-model list can change
 * between two reads).
 */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.every((v) => v === null || typeof v !== 'object') ? 'list of values' : value.map(shape);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return value === null ? 'null' : typeof value;
}

describe('status and routing log', () => {
  let ollama: SimEngine;
  let vllm: SimEngine;
  let hub: HubProcess;

  before(async () => {
    // slow:1b prefills at 0.06 tok/s: a short chat (~9 tokens) takes ~1.5 s of wall time at this time scale.
    ollama = await startSimEngine({ dialect: 'ollama', models: [SHARED, 'llama3.2:3b', { name: SLOW, prefillTps: 0.06 }], timeScale: 0.01 });
    vllm = await startSimEngine({ dialect: 'vllm', models: [SHARED, 'Qwen/Qwen3-4B'], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url } });
    await eventually(async () => {
      const { json } = await hub.api<PoolStatus>('GET', STATUS);
      return json.localNode.backends.every((b) => b.probedMsAgo !== null && b.healthy);
    }, 'both engines to be probed');
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([ollama?.close(), vllm?.close()]);
  });

  describe('GET /status', () => {
    it('lists each engine with its models, health, probe age and load', async () => {
      const { json } = await hub.api<PoolStatus>('GET', STATUS);
      const byKind = new Map(json.localNode.backends.map((b) => [b.kind, b]));
      assert.deepEqual([...byKind.keys()].sort(), ['ollama', 'vllm']);
      const o = byKind.get('ollama')!;
      const v = byKind.get('vllm')!;
      assert.deepEqual([...o.models].sort(), ['llama3.2:3b', SHARED, SLOW].sort());
      assert.deepEqual([...v.models].sort(), ['Qwen/Qwen3-4B', SHARED].sort());
      for (const b of [o, v]) {
        assert.equal(b.running, true);
        assert.equal(b.healthy, true);
        assert.equal(b.error, null);
        assert.equal(typeof b.probedMsAgo, 'number');
        assert.ok(b.probedMsAgo! >= 0);
        assert.equal(b.inFlight, 0);
      }
      assert.equal(o.url, ollama.url);
      assert.equal(v.url, vllm.url);
      assert.equal(json.localNode.queueDepth, 0);
    });

    it('counts a request in flight on its engine and in the queue depth, and lets it go when it ends', async () => {
      const pending = chat(hub, SLOW, 'queue depth');
      await eventually(() => ollama.state().inFlight + ollama.state().queued === 1, 'the engine to be working on the slow request');
      const { json: during } = await hub.api<PoolStatus>('GET', STATUS);
      assert.equal(during.localNode.queueDepth, 1);
      const byKind = new Map(during.localNode.backends.map((b) => [b.kind, b]));
      assert.equal(byKind.get('ollama')?.inFlight, 1);
      assert.equal(byKind.get('vllm')?.inFlight, 0);
      assert.ok(ollama.state().inFlight + ollama.state().queued === 1, 'the request was still running when status was read');
      await pending;
      const { json } = await hub.api<PoolStatus>('GET', STATUS);
      assert.equal(json.localNode.queueDepth, 0);
      assert.ok(json.localNode.backends.every((b) => b.inFlight === 0));
    });
  });

  it('answers /identify with exactly the protocol marker, to a caller with no credential', async () => {
    const res = await request(`${hub.pool}/identify`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await res.body.json(), { isCiHub: true, poolProtocol: 2 });
  });

  describe('GET /routing-log', () => {
    it('returns rows newest first, each naming its path, model and the node that served it', async () => {
      const ids = [await chat(hub, SHARED, 'one'), await chat(hub, 'llama3.2:3b', 'two'), await chat(hub, 'Qwen/Qwen3-4B', 'three')];
      const { entries } = await page(hub);
      const positions = ids.map((id) => entries.findIndex((e) => e.id === id));
      assert.ok(
        positions.every((p) => p >= 0),
        'every request has a row',
      );
      assert.deepEqual(
        positions,
        [...positions].sort((a, b) => b - a),
        'the newest request comes first',
      );
      for (let i = 1; i < entries.length; i++) assert.ok(entries[i - 1]!.timestamp >= entries[i]!.timestamp, 'timestamps never increase down the page');
      const newest = entries[positions[2]!]!;
      assert.equal(newest.path, '/v1/chat/completions');
      assert.equal(newest.model, 'Qwen/Qwen3-4B');
      assert.equal(newest.node, 'local');
      assert.equal(newest.backend, 'vllm');
      assert.equal(newest.outcome, 'served');
      assert.equal(newest.direction, 'outbound');
    });

    it('cuts the page at limit and says how many rows matched', async () => {
      const all = await page(hub);
      assert.ok(all.entries.length >= 3);
      const cut = await page(hub, '?limit=2');
      assert.equal(cut.entries.length, 2);
      assert.ok(cut.matched > cut.entries.length, 'matched above the page size says limit cut it');
      assert.deepEqual(
        cut.entries.map((e) => e.id),
        all.entries.slice(0, 2).map((e) => e.id),
      );
    });

    it('treats since as inclusive: the row carrying nextSince comes back, older ones do not', async () => {
      await chat(hub, SHARED, 'cursor');
      const first = await page(hub);
      const carrier = first.entries.find((e) => e.updatedAt === first.nextSince);
      assert.ok(carrier, 'nextSince is the updatedAt of a row on the page');
      const older = first.entries.filter((e) => e.updatedAt < first.nextSince);
      assert.ok(older.length > 0);

      const again = await page(hub, `?since=${encodeURIComponent(first.nextSince)}`);
      assert.ok(
        again.entries.some((e) => e.id === carrier.id),
        'the row carrying nextSince is returned once more',
      );
      for (const e of older) assert.ok(!again.entries.some((x) => x.id === e.id), `row ${e.id} changed before since and is not returned`);

      const fresh = await chat(hub, SHARED, 'after the cursor');
      const next = await page(hub, `?since=${encodeURIComponent(again.nextSince)}`);
      assert.ok(
        next.entries.some((e) => e.id === fresh),
        'a row placed after the cursor is returned',
      );
    });

    it('returns a row it last showed as pending once it has settled, on the next poll', async () => {
      const pending = chat(hub, SLOW, 'settle later');
      const seen = await eventually(async () => {
        const p = await page(hub);
        const row = p.entries.find((e) => e.model === SLOW && e.outcome === 'pending');
        return row ? { row, nextSince: p.nextSince } : null;
      }, 'the slow request to show as pending');
      assert.equal(seen.row.status, null);
      const id = await pending;
      assert.equal(id, seen.row.id);

      const next = await page(hub, `?since=${encodeURIComponent(seen.nextSince)}`);
      const settled = next.entries.find((e) => e.id === id);
      assert.ok(settled, 'the settled row is returned by the poll that follows nextSince');
      assert.equal(settled.outcome, 'served');
      assert.ok(settled.updatedAt > seen.row.updatedAt);
      assert.equal(settled.timestamp, seen.row.timestamp, 'placement time does not move when the row settles');
    });

    it('accepts an offset zone sent as %2B, which names the same instant as Z', async () => {
      const { nextSince } = await page(hub);
      const ms = Date.parse(nextSince);
      // The same instant written at +01:00.
      const local = new Date(ms + 3_600_000).toISOString().replace('Z', '');
      const viaZ = await page(hub, `?since=${encodeURIComponent(nextSince)}`);
      const viaOffset = await page(hub, `?since=${local}%2B01:00`);
      assert.deepEqual(
        viaOffset.entries.map((e) => e.id),
        viaZ.entries.map((e) => e.id),
      );
      assert.ok(viaZ.entries.length > 0);
    });

    it('refuses a since with no zone, saying a zone is needed', async () => {
      const res = await hub.api<ErrorBody>('GET', `${LOG}?since=2026-11-30T12:00:00`);
      assert.equal(res.status, 400);
      assert.match(res.json.error.message, /zone/);
    });

    it('refuses an offset whose + arrived as a space, saying to send it as %2B', async () => {
      // Sent unencoded on purpose: the query string turns the + into a space on the way in.
      const res = await hub.api<ErrorBody>('GET', `${LOG}?since=2026-11-30T12:00:00.000+01:00`);
      assert.equal(res.status, 400);
      assert.match(res.json.error.message, /%2B/);
    });

    for (const limit of ['0', '10001', 'abc', '-1', '2.5']) {
      it(`refuses limit=${limit} with a 400`, async () => {
        const res = await hub.api<ErrorBody>('GET', `${LOG}?limit=${limit}`);
        assert.equal(res.status, 400);
        assert.match(res.json.error.message, /limit/);
      });
    }

    it('accepts the largest limit, 10000', async () => {
      const p = await page(hub, '?limit=10000');
      assert.equal(p.entries.length, p.summary.recorded);
    });

    it('summarises the ring: boot id, start time, totals, the oldest row and outcome counts', async () => {
      const p = await page(hub, '?limit=10000');
      const s = p.summary;
      assert.match(s.bootId, /\S{8,}/);
      assert.ok(Number.isFinite(Date.parse(s.startedAt)));
      assert.ok(Date.parse(s.startedAt) <= Date.parse(p.entries.at(-1)!.timestamp));
      assert.equal(s.recorded, p.entries.length);
      assert.equal(s.totalRecorded, s.recorded, 'nothing evicted yet');
      assert.equal(s.oldestAt, p.entries.at(-1)!.timestamp);
      assert.equal(s.counts.served, p.entries.filter((e) => e.outcome === 'served').length);
      assert.equal(s.counts.failed, p.entries.filter((e) => e.outcome === 'failed').length);
      assert.equal(s.counts.pending, p.entries.filter((e) => e.outcome === 'pending').length);
      assert.ok(s.counts.served >= 6);
      for (const key of ['failedOver', 'clientClosed', 'requestErrors', 'outputFaults'] as const) assert.equal(typeof s.counts[key], 'number');
    });
  });

  describe('cihub pool status', () => {
    it('names each engine and the models the Hub can serve', async () => {
      const res = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
      assert.equal(res.code, 0, res.stderr);
      for (const text of ['ollama', 'vllm', ollama.url, vllm.url, SHARED, 'llama3.2:3b', SLOW, 'Qwen/Qwen3-4B']) {
        assert.ok(res.stdout.includes(text), `status output names ${text}:\n${res.stdout}`);
      }
      assert.match(res.stdout, new RegExp(`${SHARED.replace('.', '\\.')}\\s+local \\(ollama, vllm\\)`), 'a model held by both engines names both');
    });

    it('prints one JSON document with --json, shaped exactly like GET /status', async () => {
      const res = await runCli(['pool', 'status', '--json'], { dataDir: hub.dataDir });
      assert.equal(res.code, 0, res.stderr);
      const fromCli = JSON.parse(res.stdout) as PoolStatus;
      const { json: fromApi } = await hub.api<PoolStatus>('GET', STATUS);
      assert.deepEqual(shape(fromCli), shape(fromApi));
      assert.deepEqual(fromCli.settings, fromApi.settings);
      assert.equal(fromCli.reason, fromApi.reason);
    });
  });

  describe('cihub pool log', () => {
    let failoverId: string;
    let failoverRow: RoutingLogEntry;

    before(async () => {
      // Both engines hold qwen3:8b and the Ollama one is tried first; it answers 503 once.
      await ollama.setFault({ mode: 'error', status: 503, model: SHARED, count: 1 });
      const res = await request(`${hub.pool}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: SHARED, messages: [{ role: 'user', content: 'fail over please' }] }),
      });
      await res.body.text();
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-hub-pool-backend'], 'vllm');
      failoverId = String(res.headers['x-hub-pool-request-id']);
      const p = await page(hub);
      failoverRow = p.entries.find((e) => e.id === failoverId)!;
      assert.ok(failoverRow);
    });

    it('prints each row in the documented column layout, with a ↳ line naming the failover', async () => {
      const res = await runCli(['pool', 'log', '--limit', '1'], { dataDir: hub.dataDir });
      assert.equal(res.code, 0, res.stderr);
      const lines = res.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /served/, 'a header line of counts comes first');
      const time = `${failoverRow.timestamp.slice(0, 19).replace('T', ' ')}Z`;
      const expectedRow = `${time} ${'out'.padEnd(4)} ${SHARED.padEnd(20)} ${'local'.padEnd(8)} ${'2/2'.padEnd(5)} ${String(failoverRow.durationMs).padEnd(7)} ✓ served`;
      assert.equal(lines[1], expectedRow);
      assert.equal(lines[2], '  ↳ failed over from local (ollama): HTTP 503');
      assert.equal(lines.length, 4);
    });

    it('ends with the command that reads on from the page, which shows the newest row once more', async () => {
      const first = await runCli(['pool', 'log', '--limit', '1'], { dataDir: hub.dataDir });
      const command = /^rows placed or changed from here on: cihub (pool log --since \S+)$/.exec(first.stdout.trimEnd().split('\n').at(-1)!);
      assert.ok(command, first.stdout);
      const next = await runCli(command[1]!.split(' '), { dataDir: hub.dataDir });
      assert.equal(next.code, 0, next.stderr);
      assert.equal(next.stdout.trimEnd().split('\n')[1], first.stdout.split('\n')[1], 'since is inclusive');
    });

    it('prints the routing-log page as one JSON document with --json', async () => {
      const res = await runCli(['pool', 'log', '--json'], { dataDir: hub.dataDir });
      assert.equal(res.code, 0, res.stderr);
      const doc = JSON.parse(res.stdout) as RoutingLogPage;
      assert.deepEqual(Object.keys(doc).sort(), ['entries', 'matched', 'nextSince', 'summary']);
      const row = doc.entries[0]!;
      assert.equal(row.id, failoverId);
      assert.deepEqual(row.failedOverFrom, ['local']);
      assert.deepEqual(row.attempts, [{ node: 'local', backend: 'ollama', status: 503, reason: 'HTTP 503' }]);
      assert.equal(row.backend, 'vllm');
      assert.equal(row.attempt, 2);
      assert.ok(doc.summary.counts.failedOver >= 1);
    });

    it("reads --since as an age on this machine's clock too, as cihub logs does", async () => {
      const lastDay = JSON.parse((await runCli(['pool', 'log', '--since', '1d', '--json'], { dataDir: hub.dataDir })).stdout) as RoutingLogPage;
      assert.ok(lastDay.entries.some((e) => e.id === failoverId));
      // The row settled before this command started, so an age of nothing reaches past it.
      const fromNow = await runCli(['pool', 'log', '--since', '0s', '--json'], { dataDir: hub.dataDir });
      assert.equal(fromNow.code, 0, fromNow.stderr);
      assert.deepEqual((JSON.parse(fromNow.stdout) as RoutingLogPage).entries, []);
    });
  });
});

describe('routing-log ring bound', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  const TOTAL = 205;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: 'tiny:1b', answerTokens: 1, loadMs: 0 }], timeScale: 0 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url, HUB_POOL_ROUTING_LOG_SIZE: '200' } });
    // Reuse each engine answer for a while so 205 requests do not cost 205 live probes.
    await hub.api('PATCH', '/api/inference/pool/settings', { poolProbeSnapshotTtlMs: 60_000 });
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  it(`keeps the newest 200 of ${TOTAL} rows and counts every one it recorded`, async () => {
    const ids: string[] = [];
    const BATCH = 5;
    for (let i = 0; i < TOTAL; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, TOTAL - i) }, (_, j) => i + j);
      // Sequential batches keep placement order equal to the order ids are collected in.
      for (const id of await Promise.all(batch.map((n) => chat(hub, 'tiny:1b', `n${n}`)))) ids.push(id);
    }
    assert.equal(ids.length, TOTAL);
    const p = await page(hub, '?limit=10000');
    assert.equal(p.entries.length, 200);
    assert.equal(p.summary.recorded, 200);
    assert.equal(p.summary.totalRecorded, TOTAL);
    const held = new Set(p.entries.map((e) => e.id));
    // Each batch is placed only after the one before it has finished, so the first batch is the oldest five.
    assert.ok(
      ids.slice(BATCH).every((id) => held.has(id)),
      'the newest 200 requests are held',
    );
    assert.ok(
      ids.slice(0, BATCH).every((id) => !held.has(id)),
      'the oldest five are evicted',
    );
    assert.equal(p.summary.oldestAt, p.entries.at(-1)!.timestamp);
    const unlimited = await page(hub);
    assert.equal(unlimited.entries.length, 200, 'a call without limit returns at most 200 rows');
  });
});
