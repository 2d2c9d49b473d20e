/**
 * `cihub demo` (what `npm start` runs): a Hub on loopback fronting two simulated engines,
 * a few requests in both dialects, a table of where each was served, and the commands to
 * try by hand. It keeps running so those commands work, until Ctrl-C (or exits at once
 * with --once).
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

export async function runDemo(opts: { env: Readonly<Record<string, string | undefined>>; once?: boolean }): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cihub-demo-'));
  const ollama = await startSimEngine({ dialect: 'ollama', models: ['llama3.2:3b', 'qwen3:8b', { name: 'nomic-embed-text', capabilities: ['embedding'] }], timeScale: DEMO_TIME_SCALE });
  const vllm = await startSimEngine({ dialect: 'vllm', models: ['Qwen/Qwen3-4B', 'qwen3:8b'], timeScale: DEMO_TIME_SCALE, slots: 4 });
  const env = loadEnv({ ...opts.env, OLLAMA_URL: ollama.url, VLLM_URL: vllm.url, LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' }, { port: 0, host: '127.0.0.1', dataDir });
  const hub = await startHub(env, { logger: createLogger('info', destination(join(dataDir, 'hub.log'))) });
  const base = `${hub.url}/api/inference/pool`;

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
      `Hub Pool demo: a Hub at ${hub.url} fronting two simulated engines`,
      `  ollama  ${ollama.url}  llama3.2:3b, qwen3:8b, nomic-embed-text`,
      `  vllm    ${vllm.url}  Qwen/Qwen3-4B, qwen3:8b`,
      '',
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
      '',
      `The Hub's log is ${join(dataDir, 'hub.log')}.`,
      opts.once ? '' : 'Ctrl-C stops the demo.',
      '',
    ].join('\n'),
  );

  const stop = async () => {
    await hub.close();
    await ollama.close();
    await vllm.close();
  };
  if (opts.once) return stop();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await stop();
}
