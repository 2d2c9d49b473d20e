/**
 * Helpers for the simulator's own tests: recorded fixtures, shape comparison, stream framing
 * parsers and small HTTP calls. Not part of the simulator's API.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

import { scaled } from '../../test/helpers/time-scale.js';

/** Fixtures live beside the sources; compiled tests run from dist/src/sim, three levels below the repo root. */
const FIXTURE_DIR = fileURLToPath(new URL('../../../src/sim/fixtures/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(`${FIXTURE_DIR}${name}`, 'utf8');
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name)) as unknown;
}

/**
 * The type skeleton of a JSON value: objects become their keys (sorted) with each value's shape,
 * arrays the shape of their first element, scalars their JSON type. Two bodies with equal shapes
 * have the same keys at every depth and the same value types.
 */
export type Shape = string | Shape[] | { [key: string]: Shape };

export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    const out: { [key: string]: Shape } = {};
    for (const key of Object.keys(value).sort()) out[key] = shapeOf((value as Record<string, unknown>)[key]);
    return out;
  }
  return typeof value;
}

export function assertSameShape(actual: unknown, recorded: unknown, what: string): void {
  assert.deepEqual(shapeOf(actual), shapeOf(recorded), `${what}: keys or value types differ from the recorded sample`);
}

/** Shapes of a frame sequence with repeats collapsed, so streams of different lengths compare by structure. */
export function collapsedShapes(frames: readonly unknown[]): Shape[] {
  const out: Shape[] = [];
  let last = '';
  for (const f of frames) {
    const shape = shapeOf(f);
    const key = JSON.stringify(shape);
    if (key !== last) out.push(shape);
    last = key;
  }
  return out;
}

/** Parses NDJSON, asserting Ollama's framing: one JSON object per line, every line ending in \n. */
export function parseNdjson(text: string): Record<string, unknown>[] {
  assert.ok(text.endsWith('\n'), 'NDJSON body must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  return lines.map((line) => {
    assert.notEqual(line.trim(), '', 'NDJSON body must have no blank lines');
    return JSON.parse(line) as Record<string, unknown>;
  });
}

export const DONE = '[DONE]';

/** Parses SSE, asserting the engines' framing: `data: <json>` events each followed by a blank line. */
export function parseSse(text: string): Array<Record<string, unknown> | typeof DONE> {
  assert.ok(text.endsWith('\n\n'), 'SSE body must end with a blank line');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((event) => {
      assert.ok(event.startsWith('data: '), `SSE event must be a data line, got ${JSON.stringify(event.slice(0, 40))}`);
      assert.ok(!event.includes('\n'), 'each SSE event must be a single data line');
      const data = event.slice('data: '.length);
      return data === DONE ? DONE : (JSON.parse(data) as Record<string, unknown>);
    });
}

export interface HttpReply {
  status: number;
  contentType: string;
  text: string;
}

export async function postJson(url: string, body: unknown, signal?: AbortSignal): Promise<HttpReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

export async function getReply(url: string): Promise<HttpReply> {
  const res = await fetch(url);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/**
 * Below this a deadline given to waitFor() is raised to it. The wait ends when `check` holds, so
 * the deadline only bounds how long a broken simulator can hold the run; a fixed 5 s one failed
 * engine-behaviour's reload test while another process loaded both cores (issue 9, item 21).
 */
const WAIT_FOR_FLOOR_MS = 15_000;

/** Polls until `check` holds, failing after `timeoutMs` (at least WAIT_FOR_FLOOR_MS, scaled). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = WAIT_FOR_FLOOR_MS): Promise<void> {
  const deadline = Date.now() + scaled(Math.max(timeoutMs, WAIT_FOR_FLOOR_MS));
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Raw response of one request on a fresh connection; resolves with how the exchange ended. */
export async function rawPost(url: string, body: unknown): Promise<{ status: number; text: string; ended: 'complete' | 'reset' } | { error: string }> {
  return await new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ended: 'complete' }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, text, ended: 'reset' }));
      res.on('aborted', () => resolve({ status: res.statusCode ?? 0, text, ended: 'reset' }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(JSON.stringify(body));
  });
}
