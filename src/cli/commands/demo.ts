/**
 * `cihub demo` (what `npm start` runs): three Hubs on loopback, each fronting simulated engines,
 * paired through the real PIN flow (the receiving Hub mints a PIN, the other sends the request
 * with it, the receiver approves), then requests in both dialects to hub-a, including a model
 * only hub-b holds and an engine failing over, a table of where each was served, and commands
 * to try by hand. `--real` runs two Hubs on real llama.cpp engines instead. It keeps running so
 * the commands work, until Ctrl-C, or exits at once with --once (and then suggests none). Either
 * way it leaves nothing behind: each Hub's data dir is a temporary one, removed once it stops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from '../../util/undici-lean.js';
import { readOperatorKey } from '../../config/data-dir.js';
import { loadEnv } from '../../config/env.js';
import { startSimEngine, type SimEngine } from '../../sim/engine.js';
import { startHub, type HubSystem } from '../../system.js';
import { freeLoopbackPort } from '../../util/free-port.js';
import { createHubLogger } from '../../util/logger.js';
import { untilSignalled } from '../../util/until-signalled.js';
import { withLlama } from '../llama-import.js';
import { table } from '../render/pool-status.js';
import { writeOut } from '../output.js';
import { step, stepIfModelMissing } from '../steps.js';

/** The demo's simulated engines run 20x faster than the timings they report. */
const DEMO_TIME_SCALE = 0.05;
/** How long the demo waits for a new pairing's first health check to bring the peer's models. */
const PAIRING_WAIT_MS = 15_000;
const SUFFIX = 'demo.ts.net';

interface DemoCall {
  readonly label: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** The fault injected on hub-a's Ollama just before this call. */
  readonly failOllama?: boolean;
}

const SIM_CALLS: readonly DemoCall[] = [
  { label: 'OpenAI chat', path: '/v1/chat/completions', body: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'Say hello' }] } },
  {
    label: 'OpenAI chat, streamed',
    path: '/v1/chat/completions',
    body: { model: 'Qwen/Qwen3-4B', stream: true, messages: [{ role: 'user', content: 'Count to three' }] },
  },
  { label: 'Ollama chat, streamed', path: '/api/chat', body: { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'Name a colour' }] } },
  { label: 'Ollama generate', path: '/api/generate', body: { model: 'qwen3:8b', prompt: 'Why is the sky blue?', stream: false } },
  { label: 'Ollama embed', path: '/api/embed', body: { model: 'nomic-embed-text', input: 'pooling' } },
  { label: 'only hub-b has it', path: '/api/chat', body: { model: 'mistral:7b', messages: [{ role: 'user', content: 'Hello from hub-a' }] } },
  { label: 'only hub-c has it', path: '/v1/chat/completions', body: { model: 'phi4:14b', messages: [{ role: 'user', content: 'Hello from hub-a' }] } },
  { label: 'auto (best chat model)', path: '/v1/chat/completions', body: { model: 'auto', messages: [{ role: 'user', content: 'Pick for me' }] } },
  {
    label: 'Ollama engine answers 503',
    path: '/v1/chat/completions',
    body: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'Still there?' }] },
    failOllama: true,
  },
];

interface DemoHub {
  readonly name: string;
  readonly hub: HubSystem;
  readonly dataDir: string;
  readonly key: string;
  /** One line per engine, for the header. */
  readonly engines: readonly string[];
}

interface DemoOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly once?: boolean;
  readonly real?: boolean;
}

export async function runDemo(opts: DemoOptions): Promise<void> {
  // Run whether the demo ends, is stopped, or fails half-way: engines, Hubs, then their data dirs.
  const closers: Array<() => Promise<void>> = [];
  // Heard from the first step: a Ctrl-C while the Hubs start and pair met Node's default action,
  // which left every data dir made so far (operator keys included) in the temporary directory.
  const stopped = untilSignalled().then(() => 'stopped' as const);
  const run = demo(opts, closers, stopped);
  let outcome: 'finished' | 'stopped';
  try {
    outcome = await Promise.race([run.then(() => 'finished' as const), stopped]);
  } finally {
    for (const close of closers) await close();
  }
  if (outcome === 'stopped') {
    // Stopped part-way: the step still running fails as its Hubs and engines go, or waits on
    // something that no longer matters (a model being generated); neither is worth waiting for.
    run.catch(() => undefined);
    process.exit(0);
  }
}

async function demo(opts: DemoOptions, closers: Array<() => Promise<void>>, stopped: Promise<unknown>): Promise<void> {
  const sim = async (dialect: 'ollama' | 'vllm', models: Parameters<typeof startSimEngine>[0]['models'], slots = 1): Promise<SimEngine> => {
    const engine = await startSimEngine({ dialect, models, timeScale: DEMO_TIME_SCALE, slots });
    closers.push(() => engine.close());
    return engine;
  };

  // Which engines each Hub fronts: simulated by default, real llama.cpp with --real.
  let plan: Array<{ name: string; env: Record<string, string>; engines: string[] }>;
  let calls: readonly DemoCall[];
  let notes: readonly string[] = [];
  let failable: SimEngine | null = null;
  if (opts.real) {
    const { llama, real } = await withLlama(async () => {
      const llama = await import('../../llama/index.js');
      for (const size of ['tiny', 'medium'] as const) stepIfModelMissing(size);
      step('starting two llama.cpp engines');
      return { llama, real: await llama.startRealEngines() };
    });
    closers.push(() => real.close());
    plan = [
      { name: `hub-a.${SUFFIX}`, env: { OLLAMA_URL: real.tiny.url }, engines: [`llama.cpp ${real.tiny.url}  ${real.tiny.modelName}`] },
      { name: `hub-b.${SUFFIX}`, env: { OLLAMA_URL: real.medium.url }, engines: [`llama.cpp ${real.medium.url}  ${real.medium.modelName}`] },
    ];
    calls = llama.realDemoCalls();
    notes = real.notes;
  } else {
    step('starting four simulated engines');
    const ollama = await sim('ollama', ['llama3.2:3b', 'qwen3:8b', { name: 'nomic-embed-text', capabilities: ['embedding'] }]);
    const vllm = await sim('vllm', ['Qwen/Qwen3-4B', 'qwen3:8b'], 4);
    const ollamaB = await sim('ollama', ['mistral:7b', 'qwen3:8b']);
    const vllmC = await sim('vllm', ['phi4:14b', 'Qwen/Qwen3-4B'], 2);
    failable = ollama;
    plan = [
      {
        name: `hub-a.${SUFFIX}`,
        env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url },
        engines: [`ollama  ${ollama.url}  llama3.2:3b, qwen3:8b, nomic-embed-text`, `vllm    ${vllm.url}  Qwen/Qwen3-4B, qwen3:8b`],
      },
      { name: `hub-b.${SUFFIX}`, env: { OLLAMA_URL: ollamaB.url }, engines: [`ollama  ${ollamaB.url}  mistral:7b, qwen3:8b`] },
      { name: `hub-c.${SUFFIX}`, env: { VLLM_URL: vllmC.url }, engines: [`vllm    ${vllmC.url}  phi4:14b, Qwen/Qwen3-4B`] },
    ];
    calls = SIM_CALLS;
  }

  step(`starting ${plan.length} Hubs on loopback`);
  const ports = await Promise.all(plan.map(() => freeLoopbackPort()));
  const origins = plan.map((p, i) => `${p.name}=http://127.0.0.1:${ports[i]}`).join(',');
  const hubs: DemoHub[] = [];
  for (const [i, p] of plan.entries()) {
    const dataDir = mkdtempSync(join(tmpdir(), `cihub-demo-${p.name.slice(0, 5)}-`));
    // Pushed, so it runs after every Hub (each put first) has closed.
    closers.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = loadEnv(
      {
        ...opts.env,
        OLLAMA_URL: '',
        VLLM_URL: '',
        LEMONADE_URL: '',
        OMLX_URL: '',
        LLAMACPP_URL: '',
        ...p.env,
        HUB_NODE_FQDN: p.name,
        HUB_TAILNET_SUFFIX: SUFFIX,
        HUB_POOL_PEER_ORIGINS: origins,
      },
      { port: ports[i], host: '127.0.0.1', dataDir },
    );
    const hub = await startHub(env, { logger: createHubLogger('info', dataDir, { stdout: false }).logger });
    closers.unshift(() => hub.close());
    hubs.push({ name: p.name, hub, dataDir, key: readOperatorKey(dataDir) ?? '', engines: p.engines });
  }

  // The real PIN flow, through each Hub's operator API: every pair of Hubs is paired once.
  const op = async <T>(target: DemoHub, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const res = await request(`${target.hub.url}/api/inference/pool${path}`, {
      method,
      headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.body.json()) as T;
    if (res.statusCode >= 400) throw new Error(`demo: ${path} answered ${res.statusCode}: ${JSON.stringify(json)}`);
    return json;
  };
  const pairings: string[] = [];
  step('pairing the Hubs with PINs');
  for (const [i, from] of hubs.entries()) {
    for (const to of hubs.slice(i + 1)) {
      const { pin, fingerprint } = await op<{ pin: string; fingerprint: string }>(to, 'POST', '/pairing-pin');
      await op(from, 'POST', '/peers/pair', { nodeFqdn: to.name, pin });
      const { peers } = await op<{ peers: { id: string; nodeFqdn: string }[] }>(to, 'GET', '/peers');
      await op(to, 'POST', `/peers/${peers.find((r) => r.nodeFqdn === from.name)?.id ?? 'missing'}/approve`);
      pairings.push(`${to.name} minted PIN ${pin} (key ${fingerprint}); ${from.name} sent the request with it; ${to.name} approved.`);
    }
  }
  const entry = hubs[0]!;
  step("waiting for each Hub to read its peers' engines");
  const ready = await waitForPeers(() => op<{ peers: { status: string; backends: unknown[] | null }[] }>(entry, 'GET', '/peers'), hubs.length - 1);

  step(`sending ${calls.length} requests`);
  const base = `${entry.hub.url}/api/inference/pool`;
  const rows: string[][] = [['REQUEST', 'ROUTE', 'MODEL', 'STATUS', 'SERVED BY', 'ENGINE']];
  for (const c of calls) {
    if (c.failOllama && failable) await failable.setFault({ mode: 'error', status: 503, model: String(c.body.model), count: 1 });
    const res = await request(`${base}${c.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.body) });
    await res.body.text();
    const h = (name: string) => String(res.headers[name] ?? '-');
    rows.push([c.label, c.path, h('x-hub-pool-model'), String(res.statusCode), h('x-hub-pool-served-by'), h('x-hub-pool-backend')]);
  }

  const cli = (h: DemoHub) => `./bin/cihub --data-dir ${h.dataDir}`;
  writeOut(
    [
      `Hub Pool demo: ${hubs.length} Hubs on loopback, paired with PINs${ready ? '' : ' (some peers had not reported their models yet)'}`,
      ...hubs.flatMap((h) => [`  ${h.name}  ${h.hub.url}`, ...h.engines.map((e) => `    ${e}`)]),
      '',
      'Pairing:',
      ...pairings.map((p) => `  ${p}`),
      '  (Peers are dialled through HUB_POOL_PEER_ORIGINS here; on a real tailnet they are reached at https://<name>.)',
      '',
      `Requests sent to ${entry.name}:`,
      ...table(rows).map((l) => `  ${l}`),
      '',
      ...(opts.real
        ? ['Real engines:', ...notes.map((n) => `  ${n}`)]
        : [`Models only a peer holds are served by that peer; the last row failed over: hub-a's Ollama answered 503 and its vLLM served it.`]),
      '',
      // With --once the Hubs and their data dirs are gone by the time these could be tried.
      ...(opts.once
        ? []
        : [
            'Try it:',
            `  curl -s ${base}/v1/models`,
            `  curl -i ${base}/v1/chat/completions -H 'content-type: application/json' -d '{"model":"${String(calls[0]?.body.model)}","messages":[{"role":"user","content":"hi"}]}'`,
            `  ${cli(entry)} pool status`,
            `  ${cli(entry)} pool log`,
            ...hubs.slice(1).map((h) => `  ${cli(h)} pool log`),
            '',
            `hub-a's log: ${cli(entry)} logs (the file is ${join(entry.dataDir, 'logs', 'hub.log')}).`,
            'Ctrl-C stops the demo.',
            '',
          ]),
    ].join('\n'),
  );
  if (!opts.once) await stopped;
}

/** Waits until the entry Hub sees `count` peers connected with their models; false when the wait ran out. */
async function waitForPeers(read: () => Promise<{ peers: { status: string; backends: unknown[] | null }[] }>, count: number): Promise<boolean> {
  for (const deadline = Date.now() + PAIRING_WAIT_MS; Date.now() < deadline; await sleep(100)) {
    const { peers } = await read();
    if (peers.filter((p) => p.status === 'connected' && p.backends !== null && p.backends.length > 0).length >= count) return true;
  }
  return false;
}
