/**
 * `cihub demo` (what `npm start` runs): two Hubs on loopback, each fronting simulated engines,
 * paired through the real PIN flow (B mints a PIN, A sends the request, B approves), then a few
 * requests in both dialects on A, a table of where each was served, and the commands to try by
 * hand. It keeps running so those commands work, until Ctrl-C (or exits at once with --once).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { loadEnv } from '../../config/env.js';
import { startSimEngine } from '../../sim/engine.js';
import { startHub } from '../../system.js';
import { createLogger } from '../../util/logger.js';
import { table } from '../render/pool-status.js';
import { readOperatorKey } from '../../config/data-dir.js';
import { freeLoopbackPort } from '../../util/free-port.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { destination } from 'pino';

/** The demo's engines run 20x faster than the simulated timings they report. */
const DEMO_TIME_SCALE = 0.05;

interface DemoCall {
  readonly label: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const CALLS: readonly DemoCall[] = [
  { label: 'OpenAI chat', path: '/v1/chat/completions', body: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'Say hello' }] } },
  { label: 'OpenAI chat, streamed', path: '/v1/chat/completions', body: { model: 'Qwen/Qwen3-4B', stream: true, messages: [{ role: 'user', content: 'Count to three' }] } },
  { label: 'Ollama chat, streamed', path: '/api/chat', body: { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'Name a colour' }] } },
  { label: 'Ollama generate', path: '/api/generate', body: { model: 'qwen3:8b', prompt: 'Why is the sky blue?', stream: false } },
  { label: 'Ollama embed', path: '/api/embed', body: { model: 'nomic-embed-text', input: 'pooling' } },
  { label: 'auto (best chat model)', path: '/v1/chat/completions', body: { model: 'auto', messages: [{ role: 'user', content: 'Pick for me' }] } },
];

const HUB_A = 'hub-a.demo.ts.net';
const HUB_B = 'hub-b.demo.ts.net';
/** How long the demo waits for the new pairing's first health check. */
const PAIRING_WAIT_MS = 10_000;

export async function runDemo(opts: { env: Readonly<Record<string, string | undefined>>; once?: boolean }): Promise<void> {
  const ollama = await startSimEngine({ dialect: 'ollama', models: ['llama3.2:3b', 'qwen3:8b', { name: 'nomic-embed-text', capabilities: ['embedding'] }], timeScale: DEMO_TIME_SCALE });
  const vllm = await startSimEngine({ dialect: 'vllm', models: ['Qwen/Qwen3-4B', 'qwen3:8b'], timeScale: DEMO_TIME_SCALE, slots: 4 });
  const ollamaB = await startSimEngine({ dialect: 'ollama', models: ['mistral:7b', 'qwen3:8b'], timeScale: DEMO_TIME_SCALE });
  const [portA, portB] = [await freeLoopbackPort(), await freeLoopbackPort()];
  const pool = {
    HUB_TAILNET_SUFFIX: 'demo.ts.net',
    HUB_POOL_PEER_ORIGINS: `${HUB_A}=http://127.0.0.1:${portA},${HUB_B}=http://127.0.0.1:${portB}`,
    LEMONADE_URL: '',
    OMLX_URL: '',
    LLAMACPP_URL: '',
  };
  const start = async (name: string, port: number, engines: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), `cihub-demo-${name.slice(0, 5)}-`));
    const env = loadEnv({ ...opts.env, ...pool, VLLM_URL: '', ...engines, HUB_NODE_FQDN: name }, { port, host: '127.0.0.1', dataDir });
    const hub = await startHub(env, { logger: createLogger('info', destination(join(dataDir, 'hub.log'))) });
    return { hub, dataDir, key: readOperatorKey(dataDir) ?? '' };
  };
  const a = await start(HUB_A, portA, { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url });
  const b = await start(HUB_B, portB, { OLLAMA_URL: ollamaB.url });
  const hub = a.hub;
  const dataDir = a.dataDir;
  const base = `${hub.url}/api/inference/pool`;

  // The real PIN flow, through each Hub's operator API.
  const op = async <T>(target: typeof a, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const res = await request(`${target.hub.url}/api/inference/pool${path}`, {
      method,
      headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.body.json()) as T;
    if (res.statusCode >= 400) throw new Error(`demo: ${path} answered ${res.statusCode}: ${JSON.stringify(json)}`);
    return json;
  };
  const { pin, fingerprint } = await op<{ pin: string; fingerprint: string }>(b, 'POST', '/pairing-pin');
  await op(a, 'POST', '/peers/pair', { nodeFqdn: HUB_B, pin });
  const { peers: incoming } = await op<{ peers: { id: string }[] }>(b, 'GET', '/peers');
  await op(b, 'POST', `/peers/${incoming[0]?.id ?? 'missing'}/approve`);
  let pairing = 'waiting for the first health check';
  for (const deadline = Date.now() + PAIRING_WAIT_MS; Date.now() < deadline; await sleep(100)) {
    const { peers } = await op<{ peers: { status: string; authMode: string }[] }>(a, 'GET', '/peers');
    if (peers[0]?.status === 'connected') {
      pairing = `connected, ${peers[0].authMode} requests`;
      break;
    }
  }

  const rows: string[][] = [['REQUEST', 'ROUTE', 'MODEL', 'STATUS', 'SERVED BY', 'ENGINE']];
  const call = async (label: string, path: string, body: Record<string, unknown>) => {
    const res = await request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.body.text();
    const h = (name: string) => String(res.headers[name] ?? '-');
    rows.push([label, path, h('x-hub-pool-model'), String(res.statusCode), h('x-hub-pool-served-by'), h('x-hub-pool-backend')]);
  };
  for (const c of CALLS) await call(c.label, c.path, c.body);
  // Fail the Ollama engine once: the Hub moves the request to the other engine holding qwen3:8b.
  await ollama.setFault({ mode: 'error', status: 503, model: 'qwen3:8b', count: 1 });
  await call('Ollama engine answers 503', '/v1/chat/completions', { model: 'qwen3:8b', messages: [{ role: 'user', content: 'Still there?' }] });

  const cli = `./bin/cihub --data-dir ${dataDir}`;
  process.stdout.write(
    [
      `Hub Pool demo: two Hubs on loopback, paired with a PIN`,
      `  ${HUB_A}  ${hub.url}`,
      `    ollama  ${ollama.url}  llama3.2:3b, qwen3:8b, nomic-embed-text`,
      `    vllm    ${vllm.url}  Qwen/Qwen3-4B, qwen3:8b`,
      `  ${HUB_B}  ${b.hub.url}`,
      `    ollama  ${ollamaB.url}  mistral:7b, qwen3:8b`,
      '',
      `Pairing: ${HUB_B} minted PIN ${pin} (key ${fingerprint}), ${HUB_A} sent the request with it, ${HUB_B} approved: ${pairing}.`,
      `(Peers are dialled through HUB_POOL_PEER_ORIGINS here; on a real tailnet they are reached at https://<name>.)`,
      '',
      `Requests sent to ${HUB_A}:`,
      ...table(rows).map((l) => `  ${l}`),
      '',
      'The last row failed over: the Ollama engine answered 503 and the vLLM engine served it.',
      '',
      'Try it:',
      `  curl -s ${base}/v1/models`,
      `  curl -i ${base}/v1/chat/completions -H 'content-type: application/json' -d '{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}'`,
      `  curl -N ${base}/api/chat -d '{"model":"llama3.2:3b","messages":[{"role":"user","content":"hi"}]}'`,
      `  ${cli} pool status`,
      `  ${cli} pool log`,
      `  ./bin/cihub --data-dir ${b.dataDir} pool status`,
      '',
      `The Hub's log is ${join(dataDir, 'hub.log')}.`,
      opts.once ? '' : 'Ctrl-C stops the demo.',
      '',
    ].join('\n'),
  );

  const stop = async () => {
    await Promise.all([hub.close(), b.hub.close()]);
    await Promise.all([ollama.close(), vllm.close(), ollamaB.close()]);
  };
  if (opts.once) return stop();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await stop();
}
