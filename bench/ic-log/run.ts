/**
 * bench:ic: which property reads in the Hub's own code go megamorphic on every request. A Hub
 * runs under V8's IC log (`--log-ic`) while it serves non-streamed and streamed requests from the
 * fake upstream; each inline cache in dist/src that V8 logged as turning megamorphic at least
 * once per PER_REQUEST_SHARE requests is printed with its function, line and property.
 *
 * Why: on Node 20 an object literal that starts with a spread gets a hidden class of its own
 * every time, so every read of it misses its cache. Three such objects (the walk's settle patch,
 * the placement context, the exchange's options) cost the Hub about 40% of its CPU per request,
 * and profiles spread that cost over whatever read them (bench/README.md, 2026-12-03). The
 * log names the reading site directly. Run by hand; exits 1 when any site is listed.
 *
 *   npm run bench:ic -- [--requests 3000]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { BENCH_MODEL } from '../proxy-overhead/fake-upstream.js';
import { startHub, startUpstream, type Started } from '../proxy-overhead/targets.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const PROXY_OVERHEAD_DIR = resolve(import.meta.dirname, '../proxy-overhead');
const CHAT_PATH = '/api/inference/pool/v1/chat/completions';
/** A site is reported when V8 logged it turning megamorphic at least once per this many requests: a cache missed per request, not at start-up. */
const PER_REQUEST_SHARE = 10;
const WARMUP_REQUESTS = 2_000;

const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 100) throw new Error(`--requests must be a whole number of at least 100, not ${JSON.stringify(values.requests)}`);

async function send(origin: string, n: number, stream: boolean): Promise<void> {
  const body = JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: 'hi' }], stream });
  const pool = new Pool(origin, { connections: 8 });
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        next += 1;
        const res = await pool.request({ path: CHAT_PATH, method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`the Hub answered ${res.statusCode}`);
      }
    }),
  );
  await pool.close();
}

/** A code object V8 created: where its instructions lie, and its name ("fn file:///...js:line:col"). */
interface Code {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** Megamorphic transitions per IC site whose code is the Hub's own (dist/src), from a --log-ic log. */
function megamorphicSites(log: string, srcMarker: string): Map<string, number> {
  const codes: Code[] = [];
  const lines = log.split('\n');
  for (const line of lines) {
    if (!line.startsWith('code-creation,')) continue;
    // code-creation,type,kind,timestamp,address,size,name,sfi,state
    const f = line.split(',');
    const start = Number.parseInt(f[4]!, 16);
    codes.push({ start, end: start + Number(f[5]), name: f[6] ?? '' });
  }
  codes.sort((a, b) => a.start - b.start);
  const codeAt = (pc: number): Code | null => {
    let lo = 0;
    let hi = codes.length - 1;
    let best: Code | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (codes[mid]!.start <= pc) {
        best = codes[mid]!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best !== null && pc < best.end ? best : null;
  };
  const sites = new Map<string, number>();
  // type,pc,time,line,column,old_state,new_state,map,key,...: state N is megamorphic.
  for (const line of lines) {
    if (!/^(Keyed)?(Load|Store|Define)\w*IC,/.test(line)) continue;
    const f = line.split(',');
    if (f[6] !== 'N') continue;
    const code = codeAt(Number.parseInt(f[1]!, 16));
    if (code === null || !code.name.includes(srcMarker)) continue;
    const [fn, where = ''] = code.name.split(' ');
    const file = where.slice(where.indexOf(srcMarker) + srcMarker.length).replace(/:\d+:\d+$/, '');
    const site = `${fn || '(anonymous)'} in ${file}, line ${f[3]}:${f[4]}, .${f[8]}`;
    sites.set(site, (sites.get(site) ?? 0) + 1);
  }
  return sites;
}

const scratch = mkdtempSync(join(tmpdir(), 'cihub-bench-ic-'));
const logFile = join(scratch, 'v8.log');
const started: Started[] = [];
let listed = 0;
try {
  const upstream = await startUpstream(join(PROXY_OVERHEAD_DIR, 'fake-upstream.js'));
  started.push(upstream);
  const hub = await startHub({
    repoRoot: REPO_ROOT,
    dataDir: join(scratch, 'hub'),
    upstreamOrigin: upstream.origin,
    nodeArgs: ['--log-ic', `--logfile=${logFile}`, '--no-logfile-per-isolate'],
  });
  started.push(hub);
  await send(hub.origin, WARMUP_REQUESTS, false);
  await send(hub.origin, requests, false);
  await send(hub.origin, requests, true);
  await hub.stop();
  const sites = [...megamorphicSites(readFileSync(logFile, 'utf8'), `${REPO_ROOT}/dist/src/`)].filter(([, n]) => n * PER_REQUEST_SHARE >= requests);
  sites.sort((a, b) => b[1] - a[1]);
  for (const [site, n] of sites) process.stdout.write(`${n}\t${site}\n`);
  listed = sites.length;
  process.stdout.write(
    listed === 0
      ? `no inline cache in dist/src turned megamorphic once per ${PER_REQUEST_SHARE} requests or more (${WARMUP_REQUESTS + 2 * requests} requests)\n`
      : `${listed} site(s) turned megamorphic once per ${PER_REQUEST_SHARE} requests or more: look for an object literal that starts with a spread\n`,
  );
} finally {
  await Promise.all(started.map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = listed === 0 ? 0 : 1;
