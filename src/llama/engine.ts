/**
 * A real inference engine in one call: generate (or reuse) the model, load it into llama.cpp,
 * listen on loopback. `cihub dev llama`, the demo's real engines and the integration tests'
 * helper all start engines through this.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LlamaCore } from './core.js';
import type { RequestRecord } from './request-log.js';
import { loadRuntime } from './runtime.js';
import { EngineServer, type RecordedExchange } from './server.js';
import type { ModelSize } from './tiny-model.js';

export const DEFAULT_LLAMA_HOST = '127.0.0.1';
export const DEFAULT_SLOTS = 1;
export const DEFAULT_CTX = 4096;
/** How long close() waits for generations cut off by the closing connections to let go. */
const CLOSE_DRAIN_MS = 5_000;

export interface LlamaEngineOptions {
  size?: ModelSize;
  /** Parallel generations (context sequences). */
  slots?: number;
  /** Tokens of context per slot. */
  ctx?: number;
  port?: number;
  host?: string;
  /** Where generated models are kept (default: <os tmpdir>/cihub-models). */
  modelDir?: string;
  /** Keep every response's bytes, for tests that compare a relay with the original. */
  record?: boolean;
  threads?: number;
}

export interface LlamaEngine {
  /** e.g. http://127.0.0.1:41234, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The name it serves, e.g. cihub-tiny:latest. */
  readonly modelName: string;
  readonly modelPath: string;
  readonly slots: number;
  /** Tokens each slot holds. */
  readonly slotCtx: number;
  /** Wall ms to generate or find the model and load it. */
  readonly loadMs: number;
  /** What the engine did with each finished request, oldest first. */
  requests(): RequestRecord[];
  /** The first request record (past or future) that matches. */
  waitForRequest(match: (r: RequestRecord) => boolean, timeoutMs?: number): Promise<RequestRecord>;
  onRequest(listener: (r: RequestRecord) => void): () => void;
  /** Requests in progress (queued or generating). */
  active(): number;
  recorded(): RecordedExchange[];
  close(): Promise<void>;
}

export async function startLlamaEngine(opts: LlamaEngineOptions = {}): Promise<LlamaEngine> {
  const slots = opts.slots ?? DEFAULT_SLOTS;
  const ctx = opts.ctx ?? DEFAULT_CTX;
  if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new Error(`slots must be 1..64, got ${slots}`);
  if (!Number.isInteger(ctx) || ctx < 64) throw new Error(`ctx must be at least 64 tokens, got ${ctx}`);
  const runtime = await loadRuntime({
    size: opts.size ?? 'tiny',
    slots,
    ctx,
    ...(opts.modelDir === undefined ? {} : { modelDir: opts.modelDir }),
    ...(opts.threads === undefined ? {} : { threads: opts.threads }),
  });
  const core = new LlamaCore(runtime);
  const server = new EngineServer(core, { record: opts.record === true });
  const host = opts.host ?? DEFAULT_LLAMA_HOST;
  let port: number;
  try {
    port = await server.listen(opts.port ?? 0, host);
  } catch (err) {
    await runtime.dispose();
    throw err;
  }
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    modelName: core.modelName,
    modelPath: runtime.generated.path,
    slots,
    slotCtx: runtime.slotCtx,
    loadMs: runtime.loadMs,
    requests: () => core.log.list(),
    waitForRequest: (match, timeoutMs) => core.log.waitFor(match, timeoutMs),
    onRequest: (listener) => core.log.onRecord(listener),
    active: () => core.log.active,
    recorded: () => server.recorded(),
    close() {
      closed ??= (async () => {
        await server.close();
        // Closing the connections aborts every generation; let them leave their slots first.
        for (const deadline = Date.now() + CLOSE_DRAIN_MS; core.log.active > 0 && Date.now() < deadline;) await sleep(10);
        await runtime.dispose();
      })();
      return closed;
    },
  };
}
