import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_REPORTED_REQUESTS } from './engine-queue.js';
import { VLLM_V0_METRICS, VLLM_V1_DATA_PARALLEL_METRICS, VLLM_V1_METRICS } from './engine-queue-shapes.fixture.js';
import { parseVllmQueue } from './vllm-metrics.js';

const gauge = (name: string, value: string, labels = 'model_name="m"') => `vllm:${name}{${labels}} ${value}\n`;

describe("reading vLLM's queue from its /metrics text", () => {
  const rows: { name: string; text: string; queue: { running: number | null; waiting: number | null } | null }[] = [
    { name: 'a V1 engine: its running and waiting gauges among histograms and process metrics', text: VLLM_V1_METRICS, queue: { running: 1, waiting: 3 } },
    { name: 'data-parallel engine cores: each gauge summed over its series', text: VLLM_V1_DATA_PARALLEL_METRICS, queue: { running: 3, waiting: 4 } },
    { name: 'an older build: swapped requests count as waiting', text: VLLM_V0_METRICS, queue: { running: 2, waiting: 2 } },
    {
      name: "an idle engine's zeros as figures, not silence",
      text: gauge('num_requests_running', '0.0') + gauge('num_requests_waiting', '0.0'),
      queue: { running: 0, waiting: 0 },
    },
    { name: 'one gauge alone, the other as not reported', text: gauge('num_requests_running', '2.0'), queue: { running: 2, waiting: null } },
    { name: 'a sample without labels', text: 'vllm:num_requests_waiting 5\n', queue: { running: null, waiting: 5 } },
    { name: 'a sample with a timestamp after the value', text: gauge('num_requests_waiting', '4.0 1767323045123'), queue: { running: null, waiting: 4 } },
    { name: 'Windows line ends', text: gauge('num_requests_running', '1.0').replace('\n', '\r\n'), queue: { running: 1, waiting: null } },
    {
      name: 'a label value holding a brace, a quote and spaces',
      text: gauge('num_requests_running', '2.0', 'model_name="we}ird \\"name\\" x"'),
      queue: { running: 2, waiting: null },
    },
    {
      name: 'a metric whose name only starts like a gauge as another metric',
      text: 'vllm:num_requests_waiting_by_reason{reason="capacity"} 9.0\n' + gauge('num_requests_waiting', '1.0'),
      queue: { running: null, waiting: 1 },
    },
    { name: 'a fractional gauge as whole requests', text: gauge('num_requests_running', '2.6'), queue: { running: 3, waiting: null } },
    { name: 'a gauge inside a comment line as nothing', text: '# vllm:num_requests_running{model_name="m"} 7\n', queue: null },
    { name: 'an answer with neither gauge (metrics of some other server)', text: 'process_cpu_seconds_total 12.5\n', queue: null },
    { name: 'an empty answer', text: '', queue: null },
    {
      name: 'a cut answer without its unterminated last line',
      text: gauge('num_requests_running', '1.0') + 'vllm:num_requests_waiting{model_name="m"} 3',
      queue: { running: 1, waiting: null },
    },
    { name: 'a cut label set', text: 'vllm:num_requests_running{model_name="m\n', queue: null },
    {
      name: 'past values that are not counts',
      text: ['NaN', '+Inf', '-1', 'abc', '', '1 2 3'].map((v) => gauge('num_requests_waiting', v)).join('') + gauge('num_requests_running', '1'),
      queue: { running: 1, waiting: null },
    },
    {
      name: 'values in the spellings only JavaScript reads (hex, binary, octal, Infinity, a separator) as not reported',
      text:
        ['0x10', '0b11', '0o7', 'Infinity', '1_000', '1e', '.', '+'].map((v) => gauge('num_requests_waiting', v)).join('') + gauge('num_requests_running', '1'),
      queue: { running: 1, waiting: null },
    },
    {
      name: 'exponent and signed spellings',
      text: gauge('num_requests_running', '2e0') + gauge('num_requests_waiting', '+.5E1'),
      queue: { running: 2, waiting: 5 },
    },
    {
      name: 'a sum no engine could hold as not reported',
      text: gauge('num_requests_waiting', String(MAX_REPORTED_REQUESTS + 1)) + gauge('num_requests_running', '1'),
      queue: { running: 1, waiting: null },
    },
    { name: 'binary garbage', text: '\u0000\u00ff\ufffd{{{}}}vllm:\n\n\u0007', queue: null },
    { name: 'JSON instead of text', text: '{"detail":"Not Found"}\n', queue: null },
  ];
  for (const row of rows) {
    it(`reads ${row.name}`, () => {
      assert.deepEqual(parseVllmQueue(row.text), row.queue);
    });
  }

  it('reads a huge answer (4 MiB of histogram lines) and finds the gauges at its end', () => {
    const noise = 'vllm:time_to_first_token_seconds_bucket{engine="0",le="0.5",model_name="m"} 0.0\n';
    const text = noise.repeat(Math.floor((4 * 1024 * 1024) / noise.length)) + gauge('num_requests_running', '1.0') + gauge('num_requests_waiting', '3.0');
    assert.deepEqual(parseVllmQueue(text), { running: 1, waiting: 3 });
  });

  it('reads one 4 MiB line without a newline as nothing', () => {
    assert.equal(parseVllmQueue(`vllm:num_requests_running{model_name="${'x'.repeat(4 * 1024 * 1024)}`), null);
  });
});
