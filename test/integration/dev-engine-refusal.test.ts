/**
 * `cihub dev engine` as its own process through a `refuse` fault (docs/simulator.md). The fault
 * closes the engine port and the timer that reopens it is unref'd, so the process used to end
 * (exit 13) the moment the port closed: the documented recovery never came.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { CIHUB_BIN, eventually } from '../helpers/hub-process.js';

/** A running `cihub dev engine`, its URLs read from what it prints. */
interface CliEngine {
  readonly child: ChildProcess;
  readonly url: string;
  readonly controlUrl: string | undefined;
  output(): string;
}

async function startCliEngine(extra: readonly string[]): Promise<CliEngine> {
  const args = [CIHUB_BIN, 'dev', 'engine', '--port', '0', '--dialect', 'ollama', '--model', 'qwen3:8b', '--time-scale', '0.01', ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const wantsControl = extra.includes('--control-port');
  await eventually(
    () => child.exitCode !== null || (output.includes('listening on') && (!wantsControl || output.includes('control routes'))),
    'the engine to say where it listens',
  );
  assert.equal(child.exitCode, null, output);
  return {
    child,
    url: /listening on (http:\S+)/.exec(output)![1]!,
    controlUrl: /control routes \S+ on (http:\S+)/.exec(output)?.[1],
    output: () => output,
  };
}

/** SIGTERM, as an operator's Ctrl-C; resolves with the exit code. */
async function stop(engine: CliEngine): Promise<number | null> {
  const { child } = engine;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/** One GET on a fresh connection (a kept-alive one would outlive the close): the status, or the error code. */
function probe(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    }).on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

async function send(method: 'POST' | 'DELETE', url: string, body?: unknown): Promise<void> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  assert.equal(res.status, 200, await res.text());
}

const alive = (engine: CliEngine): boolean => engine.child.exitCode === null && engine.child.signalCode === null;

describe('cihub dev engine under a refuse fault', () => {
  it('stays up while a timed refusal has its port closed, answers again once delayMs has passed, and ends on SIGTERM', async () => {
    const engine = await startCliEngine([]);
    try {
      // 200 simulated seconds at --time-scale 0.01: two wall seconds of refusal.
      await send('POST', `${engine.url}/__sim/faults`, { mode: 'refuse', delayMs: 200_000 });
      await eventually(async () => (await probe(`${engine.url}/api/tags`)) === 'ECONNREFUSED' || !alive(engine), 'the port to close');
      assert.ok(alive(engine), `the engine exited when its port closed: ${engine.output()}`);
      await eventually(async () => !alive(engine) || (await probe(`${engine.url}/api/tags`)) === 200, 'the port to reopen');
      assert.ok(alive(engine), `the engine exited during the refusal: ${engine.output()}`);
      assert.equal(await stop(engine), 0, engine.output());
    } finally {
      await stop(engine);
    }
  });

  it('with --control-port, a refusal without delayMs lasts until DELETE /__sim/faults on the control port', async () => {
    const engine = await startCliEngine(['--control-port', '0']);
    try {
      assert.ok(engine.controlUrl !== undefined, engine.output());
      await send('POST', `${engine.url}/__sim/faults`, { mode: 'refuse' });
      await eventually(async () => (await probe(`${engine.url}/api/tags`)) === 'ECONNREFUSED', 'the port to close');
      const state = (await (await fetch(`${engine.controlUrl}/__sim/state`)).json()) as { refusing: boolean };
      assert.equal(state.refusing, true);
      await send('DELETE', `${engine.controlUrl}/__sim/faults`);
      assert.equal(await probe(`${engine.url}/api/tags`), 200);
      assert.equal(await stop(engine), 0, engine.output());
    } finally {
      await stop(engine);
    }
  });
});
