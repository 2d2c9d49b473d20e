import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runDevLlama } from './dev-llama.js';

/** The lines the command printed, and a wait for the nth: an event, not a polling budget. */
class Lines {
  readonly all: string[] = [];
  readonly #waiters: { n: number; resolve: () => void }[] = [];
  push(line: string): void {
    this.all.push(line);
    for (const w of this.#waiters) if (this.all.length >= w.n) w.resolve();
  }
  count(n: number): Promise<void> {
    return this.all.length >= n ? Promise.resolve() : new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

describe('cihub dev llama', () => {
  it('serves the generated model on the port it prints, logs each request, and stops when told', async () => {
    const lines = new Lines();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = runDevLlama({ port: 0, modelSize: 'tiny', slots: 1, ctx: 512, out: (l) => lines.push(l), until });
    await Promise.race([lines.count(1), running]);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.all[0] ?? '')?.[1];
    assert.ok(url, lines.all[0]);
    assert.match(lines.all[0]!, /model=cihub-tiny:latest slots=1 ctx=512 .*the text is noise/);
    const res = await fetch(`${url}/api/generate`, {
      method: 'POST',
      body: JSON.stringify({ model: 'cihub-tiny', prompt: 'hi', stream: false, options: { num_predict: 3 } }),
    });
    assert.equal(res.status, 200);
    await res.text();
    await lines.count(2);
    assert.match(lines.all[1] ?? '', /^#1 \/api\/generate slot 0 (stop|length): prompt \d+ \(cached 0\)/);
    stop();
    await running;
    await assert.rejects(fetch(`${url}/api/version`));
  });

  it('refuses a model size it cannot generate', async () => {
    await assert.rejects(runDevLlama({ port: 0, modelSize: 'huge', slots: 1, ctx: 512 }), /--model-size must be one of tiny, medium; got huge/);
  });
});
