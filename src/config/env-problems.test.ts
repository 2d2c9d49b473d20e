import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadEnv, type EnvProblem } from './env.js';

const problemsOf = (raw: Record<string, string>): readonly EnvProblem[] => loadEnv(raw).problems;

describe('environment values the schema refuses', () => {
  const cases: Array<{ raw: Record<string, string>; expected: EnvProblem[] }> = [
    {
      raw: { HUB_POOL_ROUTING_LOG_SIZE: 'big' },
      expected: [{ variable: 'HUB_POOL_ROUTING_LOG_SIZE', value: 'big', problem: 'is not a whole number', usedInstead: '200' }],
    },
    {
      raw: { HUB_POOL_MAX_PROMPT_TOKENS: '1023' },
      expected: [
        {
          variable: 'HUB_POOL_MAX_PROMPT_TOKENS',
          value: '1023',
          problem: 'is below 1024',
          usedInstead: 'no env ceiling (the poolMaxPromptTokens setting applies)',
        },
      ],
    },
    {
      raw: { HUB_POOL_USER_DISABLED: 'ture' },
      expected: [{ variable: 'HUB_POOL_USER_DISABLED', value: 'ture', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'false' }],
    },
    {
      raw: { HUB_POOL_SLOWER_PLACEMENT_RATIO: '0.5' },
      expected: [{ variable: 'HUB_POOL_SLOWER_PLACEMENT_RATIO', value: '0.5', problem: 'is below 1', usedInstead: '3' }],
    },
    {
      raw: { HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: 'fast' },
      expected: [{ variable: 'HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC', value: 'fast', problem: 'is not a number', usedInstead: '50' }],
    },
    {
      raw: { HUB_LOG_LEVEL: 'verbose' },
      expected: [{ variable: 'HUB_LOG_LEVEL', value: 'verbose', problem: 'is not one of fatal, error, warn, info, debug, trace, silent', usedInstead: 'info' }],
    },
    {
      raw: { HUB_INFERENCE_TAILNET_AUTH: 'require' },
      expected: [
        {
          variable: 'HUB_INFERENCE_TAILNET_AUTH',
          value: 'require',
          problem: 'is not require-key, the one value it takes',
          usedInstead: 'tailnet callers admitted by origin, without a key',
        },
      ],
    },
    {
      raw: { OLLAMA_URL: 'http://127.0.0.1:11434,127.0.0.1:11435', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' },
      expected: [{ variable: 'OLLAMA_URL', value: '127.0.0.1:11435', problem: 'is not an http:// or https:// URL', usedInstead: 'that entry is skipped' }],
    },
  ];
  for (const c of cases) {
    it(`reports ${Object.entries(c.raw).map(([k, v]) => `${k}=${v}`)[0]} with what is used instead`, () => {
      assert.deepEqual(problemsOf(c.raw), c.expected);
    });
  }

  it('uses the default for each refused value and keeps the valid ones beside it', () => {
    const env = loadEnv({
      HUB_POOL_ROUTING_LOG_SIZE: '10001',
      HUB_POOL_FIRST_BYTE_TIMEOUT_MS: '600000',
      HUB_POOL_USER_DISABLED: 'maybe',
      HUB_POOL_INBOUND_DISABLED: 'yes',
    });
    assert.deepEqual([env.routingLogSize, env.firstByteTimeoutMs, env.userDisabled, env.inboundDisabled], [200, 600_000, false, true]);
    assert.deepEqual(
      env.problems.map((p) => p.variable),
      ['HUB_POOL_USER_DISABLED', 'HUB_POOL_ROUTING_LOG_SIZE'],
    );
  });

  it('reports nothing for valid, unset or blank values', () => {
    assert.deepEqual(problemsOf({ API_PORT: '5102', HUB_POOL_MAX_PROMPT_TOKENS: '', HUB_POOL_THROUGHPUT_PLACEMENT: ' Off ', HUB_LOG_LEVEL: 'debug' }), []);
  });

  it('skips only the engine URL that is not one', () => {
    const env = loadEnv({ OLLAMA_URL: 'http://127.0.0.1:11434,ftp://x', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' });
    assert.deepEqual(
      env.engines.map((e) => e.url),
      ['http://127.0.0.1:11434'],
    );
  });

  it('a per-request knob set to nonsense later reads as its default', () => {
    const live: Record<string, string | undefined> = {};
    const { knobs } = loadEnv(live);
    live.HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS = 'soon';
    live.HUB_POOL_CONTENTION_PLACEMENT = 'sometimes';
    assert.deepEqual([knobs.slowerPlacementFloorMs(), knobs.contentionPlacement()], [20_000, true]);
  });
});

describe('OpenTelemetry export variables', () => {
  it('is off unless an endpoint is set', () => assert.equal(loadEnv({}).otlp, null));

  it('sends traces to <endpoint>/v1/traces, with the headers, service name and interval given', () => {
    const env = loadEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20t0k, x-org = 7',
      OTEL_SERVICE_NAME: 'hub-a',
      OTEL_BSP_SCHEDULE_DELAY: '1000',
    });
    assert.deepEqual(env.otlp, {
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: { authorization: 'Bearer t0k', 'x-org': '7' },
      serviceName: 'hub-a',
      intervalMs: 1000,
    });
  });

  it('is off when OTEL_SDK_DISABLED is true, whatever endpoint is set', () => {
    assert.equal(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' }).otlp, null);
    assert.notEqual(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'false' }).otlp, null);
  });

  it('takes the traces endpoint as given when it is set', () => {
    assert.equal(
      loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/v1/traces' }).otlp?.tracesUrl,
      'https://b/otlp/v1/traces',
    );
  });

  it('refuses a protocol it does not send, and an endpoint that is not a URL', () => {
    const env = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    assert.equal(env.otlp, null);
    assert.deepEqual(
      env.problems.map((p) => [p.variable, p.problem, p.usedInstead]),
      [
        ['OTEL_EXPORTER_OTLP_ENDPOINT', 'is not an http:// or https:// URL', 'no trace export'],
        ['OTEL_EXPORTER_OTLP_PROTOCOL', 'is not http/json, the one OTLP protocol this Hub sends', 'http/json'],
      ],
    );
  });

  it('switches export off on a header list it cannot read, without repeating the value', () => {
    const env = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-without-a-name' });
    assert.equal(env.otlp, null);
    assert.deepEqual(env.problems, [
      {
        variable: 'OTEL_EXPORTER_OTLP_HEADERS',
        value: '(hidden: it may hold a credential)',
        problem: 'is not a list of name=value pairs',
        usedInstead: 'no trace export',
      },
    ]);
  });
});
