/**
 * One fixed-duration load run against one URL, by autocannon (in this process) or wrk (a
 * child process), reported the same way: completed responses, how many were not 200, transport
 * errors, bytes, latency percentiles at microsecond resolution, and the client's own CPU.
 *
 * autocannon's own latency histogram keeps whole milliseconds, too coarse for a 0.15 ms target,
 * so its latencies are taken from the per-response event (a float of milliseconds) instead.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { clockTicksPerSecond, reapedChildrenTicks } from './proc-stat.js';
import { percentile } from './stats.js';

export type LoadClient = 'undici' | 'autocannon' | 'wrk';

export interface LoadSpec {
  readonly url: string;
  readonly body: string;
  readonly connections: number;
  readonly durationS: number;
}

export interface LoadResult {
  /** Responses with status 200. */
  readonly ok: number;
  /** Responses with any other status. */
  readonly non200: number;
  /** Transport errors and timeouts. */
  readonly errors: number;
  readonly bytes: number;
  readonly elapsedS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** CPU the load generator itself used, in ms (autocannon: this whole process). */
  readonly clientCpuMs: number;
}

export async function runLoad(client: LoadClient, spec: LoadSpec, scratchDir: string): Promise<LoadResult> {
  return client === 'wrk' ? runWrk(spec, scratchDir) : client === 'undici' ? runUndici(spec) : runAutocannon(spec);
}

/**
 * The default client: undici's Pool in this process, one request at a time per connection. The
 * Hub closes a keep-alive connection after 1,000 requests (http/edge.ts MAX_REQUESTS_PER_SOCKET,
 * as Node's maxRequestsPerSocket: the last answer says Connection: close), and autocannon keeps
 * writing on it, so every later request comes back as Node's 503 and a run at c=1 fails after
 * its first thousand (2026-12-02). undici opens a new connection, as a real client does.
 */
async function runUndici(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let non200 = 0;
  let errors = 0;
  let bytes = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endAt = started + spec.durationS * 1000;
  const opts = {
    path: url.pathname,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: spec.body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  };
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < endAt) {
        const sent = performance.now();
        try {
          const res = await pool.request(opts);
          let size = 0;
          for await (const chunk of res.body as AsyncIterable<Buffer>) size += chunk.length;
          const ms = performance.now() - sent;
          bytes += size;
          if (res.statusCode !== 200) {
            non200++;
            continue;
          }
          if (count === latencies.length) {
            const grown = new Float64Array(latencies.length * 2);
            grown.set(latencies);
            latencies = grown;
          }
          latencies[count++] = ms;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await pool.close();
  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    ok: count,
    non200,
    errors,
    bytes,
    elapsedS,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: count > 0 ? sum / count : Number.NaN,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let non200 = 0;
  let bytes = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: spec.body,
        connections: spec.connections,
        pipelining: 1,
        duration: spec.durationS,
        timeout: 10,
      },
      (err, res) => (err ? reject(err as Error) : resolve(res)),
    );
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      bytes += resBytes;
      if (statusCode !== 200) {
        non200++;
        return;
      }
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
    });
  });
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    ok: count,
    non200,
    errors: result.errors, // autocannon counts timeouts among errors already
    bytes,
    elapsedS,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: count > 0 ? sum / count : Number.NaN,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

interface WrkSummary {
  requests: number;
  duration_us: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50_us: number;
  p99_us: number;
  mean_us: number;
}

/** A Lua literal for any string: long brackets with enough '=' that the text cannot close them. */
function luaString(text: string): string {
  let eq = '';
  while (text.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${text}]${eq}]`;
}

async function runWrk(spec: LoadSpec, scratchDir: string): Promise<LoadResult> {
  const script = join(scratchDir, `wrk-${spec.body.length}-${Date.now()}.lua`);
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      `wrk.body = ${luaString(spec.body)}`,
      'wrk.headers["Content-Type"] = "application/json"',
      'done = function(summary, latency, requests)',
      '  local e = summary.errors',
      '  io.write(string.format(\'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"mean_us":%.3f}\\n\',',
      '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
      '    latency:percentile(50), latency:percentile(99), latency.mean))',
      'end',
      '',
    ].join('\n'),
  );
  const reapedBefore = reapedChildrenTicks();
  // One client thread: on a two-core machine a second would only take CPU from the targets.
  const args = ['-t1', `-c${spec.connections}`, `-d${spec.durationS}s`, '--timeout', '10s', '-s', script, spec.url];
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}:\n${text}`))));
  });
  const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
  if (line === undefined) throw new Error(`wrk printed no summary:\n${out}`);
  const s = JSON.parse(line.slice('WRKJSON '.length)) as WrkSummary;
  return {
    // wrk counts a status of 400 and above under errors.status; 1xx-3xx would pass as answered.
    ok: s.requests - s.status,
    non200: s.status,
    errors: s.connect + s.read + s.write + s.timeout,
    bytes: s.bytes,
    elapsedS: s.duration_us / 1e6,
    p50Ms: s.p50_us / 1000,
    p99Ms: s.p99_us / 1000,
    meanMs: s.mean_us / 1000,
    clientCpuMs: ((reapedChildrenTicks() - reapedBefore) * 1000) / clockTicksPerSecond(),
  };
}
