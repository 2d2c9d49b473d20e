import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runDevLlama } from './dev-llama.js';

describe('cihub dev llama', () => {
  it('serves the generated model on the port it prints, logs each request, and stops when told', async () => {
    const lines: string[] = [];
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = runDevLlama({ port: 0, modelSize: 'tiny', slots: 1, ctx: 512, out: (l) => lines.push(l), until });
    for (let i = 0; i < 500 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines[0] ?? '')?.[1];
    assert.ok(url, lines[0]);
    assert.match(lines[0]!, /model=cihub-tiny:latest slots=1 ctx=512 .*the text is noise/);
    const res = await fetch(`${url}/api/generate`, { method: 'POST', body: JSON.stringify({ model: 'cihub-tiny', prompt: 'hi', stream: false, options: { num_predict: 3 } }) });
    assert.equal(res.status, 200);
    await res.text();
    for (let i = 0; i < 200 && lines.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.match(lines[1] ?? '', /^#1 \/api\/generate slot 0 (stop|length): prompt \d+ \(cached 0\)/);
    stop();
    await running;
    await assert.rejects(fetch(`${url}/api/version`));
  });

  it('refuses a model size it cannot generate', async () => {
    await assert.rejects(runDevLlama({ port: 0, modelSize: 'huge', slots: 1, ctx: 512 }), /--model-size must be one of tiny, medium; got huge/);
  });
});
