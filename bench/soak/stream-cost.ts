/**
 * What one held stream costs a Hub (issue 13 item 2): a lone Hub with one simulated Ollama whose
 * answers last far longer than the run, and 100, then 500, then 1,000 streams held open through
 * it; at each level, after a full GC in the Hub (gc-probe.ts), its heap, external memory and RSS.
 * Then every stream is cancelled and the same figures are read again after --settle seconds.
 *
 *   node dist/bench/soak/stream-cost.js [--levels 100,500,1000] [--hold 8] [--settle 30] [--snapshot]
 *     [--hub-env KEY=VALUE ...]
 *
 * Run by hand, never from npm test; loopback only. Opens up to 1,000 sockets in this process and
 * 2,000 in the Hub (client and engine sides): raise `ulimit -n` first if it is under 4096.
 */
import { mkdtempSync, readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startSimEngine } from '../../src/sim/engine.js';
import { startHubProcess } from '../../test/helpers/hub-process.js';

const MODEL = 'cost:8b';
const MIB = 2 ** 20;

const { values: o } = parseArgs({
  options: {
    levels: { type: 'string', default: '100,500,1000' },
    hold: { type: 'string', default: '8' },
    settle: { type: 'string', default: '30' },
    /** Write a heap snapshot of the Hub (in this directory) when the most streams are open. */
    snapshot: { type: 'boolean', default: false },
    /** KEY=VALUE added to the Hub's environment (e.g. glibc's MALLOC_ARENA_MAX=2); repeatable. */
    'hub-env': { type: 'string', multiple: true, default: [] },
  },
});

interface ProbeLine {
  readonly t: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly mallocedMemory: number;
  readonly totalPhysicalSize: number;
  readonly rssAnon: number | null;
  readonly rssFile: number | null;
}

function lastProbe(file: string): ProbeLine {
  if (!existsSync(file)) throw new Error('the probe wrote nothing');
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as ProbeLine;
}

type Figure = Exclude<keyof ProbeLine, 't'>;

const row = (label: string, streams: number, p: ProbeLine, base: ProbeLine | null) => {
  const per = (k: Figure) => (base && streams > 0 ? `${((p[k]! - base[k]!) / streams / 1024).toFixed(1)} KiB` : '');
  const f = (k: Figure) => (p[k] === null ? '–' : (p[k] / MIB).toFixed(1));
  return `| ${label} | ${streams} | ${f('rss')} | ${f('rssAnon')} | ${f('rssFile')} | ${f('heapUsed')} | ${f('heapTotal')} | ${f('external')} | ${f('arrayBuffers')} | ${f('mallocedMemory')} | ${per('heapUsed')} | ${per('rss')} |`;
};

async function main(): Promise<void> {
  const levels = o.levels.split(',').map(Number);
  const max = Math.max(...levels);
  const probeFile = join(mkdtempSync(join(tmpdir(), 'cihub-stream-cost-')), 'probe.jsonl');
  // decodeTps 1 and 100,000 tokens: a stream outlives the run, so every one is still open when read.
  const engine = await startSimEngine({
    dialect: 'ollama',
    models: [MODEL],
    slots: max + 100,
    decodeTps: 1,
    answerTokens: 100_000,
    prefillTps: 2_000,
    loadMs: 0,
    timeScale: 1,
  });
  const hub = await startHubProcess({
    env: {
      OLLAMA_URL: engine.url,
      HUB_LOG_LEVEL: 'warn',
      NODE_OPTIONS: `--expose-gc --import=${join(import.meta.dirname, 'gc-probe.js')}${o.snapshot ? ' --heapsnapshot-signal=SIGUSR2' : ''}`,
      GC_PROBE_FILE: probeFile,
      ...Object.fromEntries(o['hub-env'].map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
    },
  });
  const agent = new Agent({ connections: null, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const controllers: AbortController[] = [];
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'tell me a long story' }], stream: true });
  const out: string[] = [];
  try {
    // One request first, so the model is loaded and every lazy path has run before the baseline.
    const warm = await request(`${hub.pool}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
    });
    await warm.body.dump();
    await sleep(Number(o.hold) * 1000);
    const base = lastProbe(probeFile);
    out.push(row('before', 0, base, null));
    let open = 0;
    let opened = 0;
    for (const level of levels) {
      while (opened < level) {
        const ac = new AbortController();
        controllers.push(ac);
        opened++;
        void request(`${hub.pool}/v1/chat/completions`, {
          method: 'POST',
          dispatcher: agent,
          signal: ac.signal,
          headers: { 'content-type': 'application/json' },
          body,
        })
          .then(async (res) => {
            open++;
            for await (const _chunk of res.body) {
              // Read and dropped: the client keeps nothing.
            }
          })
          .catch(() => {})
          .finally(() => open--);
        if (opened % 50 === 0) await sleep(100);
      }
      // Wait until every stream has its headers (bounded), then for the probe's next GC'd lines.
      for (let i = 0; i < 600 && open < level; i++) await sleep(100);
      await sleep(Number(o.hold) * 1000);
      out.push(row(`${level} streams open`, open, lastProbe(probeFile), base));
      console.log(out[out.length - 1]);
    }
    if (o.snapshot) {
      // Written by the Hub into its working directory (this one); wait until its size stops changing.
      hub.child.kill('SIGUSR2');
      let last = -1;
      for (let i = 0; i < 600; i++) {
        await sleep(1000);
        const snap = readdirSync('.').find((f) => f.endsWith('.heapsnapshot') && f.includes(String(hub.child.pid)));
        const size = snap ? statSync(snap).size : -1;
        if (size > 0 && size === last) {
          console.log(`heap snapshot: ${snap}`);
          break;
        }
        last = size;
      }
    }
    for (const ac of controllers) ac.abort();
    for (let i = 0; i < 600 && open > 0; i++) await sleep(100);
    await sleep(Number(o.settle) * 1000);
    const after = lastProbe(probeFile);
    out.push(row(`${o.settle} s after all were cancelled`, 0, after, null));
    console.log(`\nload average at the end ${loadavg()[0]!.toFixed(1)}\n`);
    console.log(
      '| when | streams | RSS MiB | anonymous | file-backed | heap used MiB | heap total MiB | external MiB | array buffers MiB | V8 malloced MiB | heap per stream | RSS per stream |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const l of out) console.log(l);
  } finally {
    await agent.destroy();
    await hub.stop();
    await engine.close();
  }
}

await main();
