/**
 * How a Hub's log tells of one of its own engines that stopped answering, on a real Hub process
 * over the engine simulator: one warning naming the engine and why when its probes start failing,
 * the failed probes after it at debug only, and one info line with the count when it answers again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';
/** Failed probes to see before the engine comes back: enough that a warning per probe would show. */
const FAILED_PROBES = 4;
const PINO_DEBUG = 20;
const PINO_INFO = 30;
const PINO_WARN = 40;

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly engine?: string;
  readonly kind?: string;
  readonly url?: string;
  readonly reason?: string;
  readonly failures?: number;
}

function logLines(log: string): LogLine[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const startEngine = (port?: number) => startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01, ...(port === undefined ? {} : { port }) });

describe('the log while a local engine is down', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startEngine();
    // Debug, so the test sees every failed probe and can tell that only the first one warned.
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url, HUB_LOG_LEVEL: 'debug' } });
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
    if (hub) rmSync(hub.dataDir, { recursive: true, force: true });
  });

  it('warns once when its probes start failing, logs the repeats at debug, and says at info when it answers again', async () => {
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
    const chat = () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    const url = engine.url;
    const failedProbe = `health probe of ollama engine at ${url} failed`;
    const engineLines = (from: number) =>
      logLines(hub.log())
        .slice(from)
        .filter((l) => l.url === url);

    await chat();
    const linesBefore = logLines(hub.log()).length;
    const port = engine.port;
    await engine.close();

    // At the default snapshot TTL of 0 each request probes the engine live.
    await eventually(async () => {
      await chat().then(
        () => assert.fail('a request was served with the only engine down'),
        () => undefined,
      );
      return engineLines(linesBefore).filter((l) => l.msg.startsWith(failedProbe)).length >= FAILED_PROBES;
    }, `${FAILED_PROBES} failed probes in the log`);

    const whileDown = engineLines(linesBefore).filter((l) => l.msg.startsWith(failedProbe));
    const warned = whileDown.filter((l) => l.level >= PINO_WARN);
    assert.equal(warned.length, 1, `one warning as the failures began; got:\n${warned.map((l) => l.msg).join('\n')}`);
    assert.deepEqual([warned[0]?.engine, warned[0]?.kind, warned[0]?.failures], ['ollama', 'ollama', 1]);
    assert.match(warned[0]?.reason ?? '', /ECONNREFUSED/, 'the reason says the connection was refused');
    assert.ok(
      whileDown.slice(1).every((l) => l.level === PINO_DEBUG),
      'the failed probes after the first are at debug',
    );

    engine = await startEngine(port);
    await eventually(
      () =>
        chat().then(
          () => true,
          () => false,
        ),
      'a request served once the engine is back',
    );
    const reachable = await eventually(() => engineLines(linesBefore).find((l) => l.msg === 'engine reachable'), 'the engine reachable line');
    assert.equal(reachable.level, PINO_INFO);
    assert.ok((reachable.failures ?? 0) >= FAILED_PROBES, `it says how many probes had failed (${reachable.failures})`);
    const all = engineLines(linesBefore);
    assert.equal(all.filter((l) => l.level >= PINO_WARN).length, 1, 'no warning but the first');
    assert.equal(all.filter((l) => l.msg === 'engine reachable').length, 1, 'one line as it answered again');
  });
});
