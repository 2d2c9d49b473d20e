import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EnvError, loadEnv, type EnvProblem } from './env.js';

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
      // Skipped, and quoted with its credentials masked: the warning goes to the log.
      raw: { VLLM_URL: 'http://admin:hunter2@127.0.0.1:8000', OLLAMA_URL: '', LEMONADE_URL: '', OMLX_URL: '' },
      expected: [
        {
          variable: 'VLLM_URL',
          value: 'http://***@127.0.0.1:8000/',
          problem: 'carries a user name or password, which the Hub does not send; give the URL without them',
          usedInstead: 'the list without that entry',
        },
      ],
    },
    {
      raw: { OLLAMA_URL: 'http://127.0.0.1:11434,127.0.0.1:11435', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' },
      expected: [
        { variable: 'OLLAMA_URL', value: '127.0.0.1:11435', problem: 'is not an http:// or https:// URL', usedInstead: 'the list without that entry' },
      ],
    },
  ];
  for (const c of cases) {
    it(`reports ${Object.entries(c.raw).map(([k, v]) => `${k}=${v}`)[0]} with what is used instead`, () => {
      assert.deepEqual(problemsOf(c.raw), c.expected);
    });
  }

  it('reports a Tailscale OAuth client ID set without its secret, and leaves the Admin API off', () => {
    const env = loadEnv({ TAILSCALE_OAUTH_CLIENT_ID: 'k123' });
    assert.deepEqual(env.problems, [
      {
        variable: 'TAILSCALE_OAUTH_CLIENT_ID',
        value: 'k123',
        problem: 'is set without TAILSCALE_OAUTH_CLIENT_SECRET',
        usedInstead: 'no Tailscale Admin API in discovery (set both variables, or neither)',
      },
    ]);
    assert.equal(env.tailscaleOAuth, null);
    assert.equal(env.tailscaleAdminApiConfigured, false);
  });

  it('reports a Tailscale OAuth secret set without its client ID, never repeating the secret', () => {
    const env = loadEnv({ TAILSCALE_OAUTH_CLIENT_SECRET: 'tskey-client-s3cret' });
    assert.deepEqual(
      env.problems.map((p) => [p.variable, p.problem]),
      [['TAILSCALE_OAUTH_CLIENT_SECRET', 'is set without TAILSCALE_OAUTH_CLIENT_ID']],
    );
    assert.doesNotMatch(JSON.stringify(env.problems), /s3cret/);
    assert.equal(env.tailscaleOAuth, null);
  });

  it('reports nothing for a Tailscale OAuth client with both halves set, and uses it', () => {
    const env = loadEnv({ TAILSCALE_OAUTH_CLIENT_ID: 'k123', TAILSCALE_OAUTH_CLIENT_SECRET: 's' });
    assert.deepEqual(env.problems, []);
    assert.deepEqual(env.tailscaleOAuth, { clientId: 'k123', clientSecret: 's' });
    assert.equal(env.tailscaleAdminApiConfigured, true);
  });

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

  it('accepts http/json, the protocol it sends, under either protocol variable', () => {
    const env = loadEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    });
    assert.deepEqual(env.problems, []);
    assert.notEqual(env.otlp, null);
  });

  it('keeps exporting when some other variable is refused: only a refused header list stops it', () => {
    const env = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', HUB_LOG_LEVEL: 'loud' });
    assert.equal(env.otlp?.tracesUrl, 'http://a:4318/v1/traces');
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

  it("switches export off on OpenTelemetry's own OTEL_TRACES_EXPORTER=none, and on an exporter it does not have", () => {
    assert.equal(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }).otlp, null);
    assert.notEqual(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'otlp' }).otlp, null);
    const zipkin = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'zipkin' });
    assert.equal(zipkin.otlp, null);
    assert.deepEqual(
      zipkin.problems.map((p) => [p.variable, p.value, p.usedInstead]),
      [['OTEL_TRACES_EXPORTER', 'zipkin', 'no trace export']],
    );
  });

  it('sends the traces-only header list beside the general one, its value winning a name both carry', () => {
    const env = loadEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20general,x-tenant=one',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20traces',
    });
    assert.deepEqual(env.otlp?.headers, { authorization: 'Bearer traces', 'x-tenant': 'one' });
  });

  it('refuses a collector URL carrying a password, switching export off and quoting the URL masked', () => {
    const env = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:S3CRETPW@collector:4318' });
    assert.equal(env.otlp, null);
    assert.deepEqual(
      env.problems.map((p) => [p.variable, p.value, p.usedInstead]),
      [['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://***@collector:4318/', 'no trace export']],
    );
    assert.match(env.problems[0]!.problem, /carries a user name or password/);
    assert.doesNotMatch(JSON.stringify(env.problems), /S3CRETPW/);
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

describe('every variable the schema can refuse: what is said and what is used instead', () => {
  // One row per variable (and per bound): the warning must name the rule the value broke and what
  // the Hub does instead, or an operator reading it cannot tell what to fix.
  const rows: readonly { variable: string; value: string; problem: string; usedInstead: string }[] = [
    { variable: 'HUB_LOG_LEVEL', value: 'verbose', problem: 'is not one of fatal, error, warn, info, debug, trace, silent', usedInstead: 'info' },
    { variable: 'HUB_POOL_USER_DISABLED', value: 'maybe', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'false' },
    { variable: 'HUB_POOL_OUTBOUND_DISABLED', value: 'maybe', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'false' },
    { variable: 'HUB_POOL_INBOUND_DISABLED', value: 'maybe', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'false' },
    {
      variable: 'HUB_POOL_MAX_PROMPT_TOKENS',
      value: '1048577',
      problem: 'is above 1048576',
      usedInstead: 'no env ceiling (the poolMaxPromptTokens setting applies)',
    },
    { variable: 'HUB_POOL_FIRST_BYTE_TIMEOUT_MS', value: '0', problem: 'is below 1', usedInstead: '300000' },
    { variable: 'HUB_POOL_FIRST_BYTE_TIMEOUT_MS', value: '5m', problem: 'is not a whole number', usedInstead: '300000' },
    { variable: 'HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC', value: '0', problem: 'is below 0.001', usedInstead: '50' },
    { variable: 'HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC', value: 'Infinity', problem: 'is not a number', usedInstead: '50' },
    { variable: 'HUB_POOL_ROUTING_LOG_SIZE', value: '199', problem: 'is below 200', usedInstead: '200' },
    { variable: 'HUB_POOL_ROUTING_LOG_SIZE', value: '10001', problem: 'is above 10000', usedInstead: '200' },
    // Digits after a letter, and digits before a point: neither is a whole number.
    { variable: 'HUB_POOL_ROUTING_LOG_SIZE', value: 'x500', problem: 'is not a whole number', usedInstead: '200' },
    { variable: 'HUB_POOL_ROUTING_LOG_SIZE', value: '500.5', problem: 'is not a whole number', usedInstead: '200' },
    { variable: 'HUB_POOL_THROUGHPUT_PLACEMENT', value: 'sometimes', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'on' },
    { variable: 'HUB_POOL_CONTENTION_PLACEMENT', value: 'sometimes', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'on' },
    { variable: 'HUB_POOL_SLOWER_PLACEMENT_RATIO', value: 'Infinity', problem: 'is not a number', usedInstead: '3' },
    { variable: 'HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS', value: '-1', problem: 'is below 0', usedInstead: '20000' },
    { variable: 'HUB_POOL_PREFIX_AFFINITY_TTL_MS', value: '0', problem: 'is below 1', usedInstead: '600000' },
    { variable: 'HUB_POOL_PREFIX_AFFINITY_TTL_MS', value: '86400001', problem: 'is above 86400000', usedInstead: '600000' },
    { variable: 'HUB_HEAP_GROWING_PERCENT', value: '301', problem: 'is above 300', usedInstead: '100' },
    { variable: 'HUB_HEAP_GROWING_PERCENT', value: '12.5', problem: 'is not a whole number', usedInstead: '100' },
    {
      variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      value: 'ftp://collector/v1/traces',
      problem: 'is not an http:// or https:// URL',
      usedInstead: 'OTEL_EXPORTER_OTLP_ENDPOINT, or no trace export',
    },
    { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'not a url', problem: 'is not an http:// or https:// URL', usedInstead: 'no trace export' },
    // A scheme that merely contains "https" is not https.
    {
      variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      value: 'git+https://collector:4318',
      problem: 'is not an http:// or https:// URL',
      usedInstead: 'no trace export',
    },
    {
      variable: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
      value: 'http/protobuf',
      problem: 'is not http/json, the one OTLP protocol this Hub sends',
      usedInstead: 'http/json',
    },
    { variable: 'OTEL_BSP_SCHEDULE_DELAY', value: '0', problem: 'is below 1', usedInstead: '5000' },
    { variable: 'OTEL_BSP_SCHEDULE_DELAY', value: '3600001', problem: 'is above 3600000', usedInstead: '5000' },
    { variable: 'OTEL_SDK_DISABLED', value: 'maybe', problem: 'is not one of true, false, 1, 0, yes, no, on, off', usedInstead: 'false' },
    {
      variable: 'HUB_COMPOSE_PROJECTS',
      value: 'Lab',
      problem: 'is not a comma-separated list of compose project names (lower case, digits, - and _)',
      usedInstead: "the compose project of the Hub's own container",
    },
  ];
  for (const r of rows) {
    it(`${r.variable}=${r.value} ${r.problem}; the Hub uses ${r.usedInstead}`, () => {
      assert.deepEqual(problemsOf({ [r.variable]: r.value }), [r]);
    });
  }

  const fatal: readonly { value: string; message: string }[] = [
    { value: '65536', message: 'API_PORT=65536 is above 65535: fix or unset it.' },
    { value: '-1', message: 'API_PORT=-1 is not a whole number: fix or unset it.' },
  ];
  for (const f of fatal) {
    it(`refuses to start on API_PORT=${f.value}, naming the variable and the value`, () => {
      assert.throws(
        () => loadEnv({ API_PORT: f.value }),
        (e: unknown) => e instanceof EnvError && e.variable === 'API_PORT' && e.message === f.message,
      );
    });
  }

  it('does not refuse a bad API_PORT when a --port flag replaces it, nor report it, and reads the rest as usual', () => {
    const env = loadEnv({ API_PORT: '70000', HUB_POOL_ROUTING_LOG_SIZE: '500', HUB_LOG_LEVEL: 'loud' }, { port: 5102 });
    assert.deepEqual([env.port, env.routingLogSize], [5102, 500]);
    assert.deepEqual(
      env.problems.map((p) => p.variable),
      ['HUB_LOG_LEVEL'],
    );
  });
});

describe('OTEL_EXPORTER_OTLP_HEADERS', () => {
  const endpoint = 'http://collector:4318';
  const rows: readonly { name: string; value: string; headers: Record<string, string> | null }[] = [
    { name: 'a trailing comma is tolerated', value: 'a=1,', headers: { a: '1' } },
    { name: 'a trailing comma and space are tolerated', value: 'a=1, ', headers: { a: '1' } },
    { name: 'an empty entry between two is skipped', value: 'a=1,,b=2', headers: { a: '1', b: '2' } },
    { name: 'a blank entry between two is skipped', value: 'a=1, ,b=2', headers: { a: '1', b: '2' } },
    { name: 'every token character is allowed in a name', value: "x!#$%&'*+.^_`|~09-z=1", headers: { "x!#$%&'*+.^_`|~09-z": '1' } },
    { name: 'an empty value is a value', value: 'a=', headers: { a: '' } },
    { name: 'a value keeps its inner "=" signs', value: 'a=b=c', headers: { a: 'b=c' } },
    { name: 'an entry with no name is refused', value: '=token', headers: null },
    { name: 'an entry with no "=" is refused', value: 'a=1,token', headers: null },
    { name: 'a name with a space is refused', value: 'x y=1', headers: null },
    { name: 'a name with a colon is refused', value: 'x:y=1', headers: null },
    { name: 'a value that is not valid percent-encoding is refused', value: 'a=%E0%A4%A', headers: null },
    { name: 'a value that decodes to a line break is refused', value: 'a=x%0D%0Ab', headers: null },
    { name: 'a value that decodes to a lone carriage return is refused', value: 'a=x%0Db', headers: null },
    { name: 'a value that decodes to a lone newline is refused', value: 'a=x%0Ab', headers: null },
    { name: 'a value that decodes to a NUL is refused', value: 'a=x%00', headers: null },
  ];
  for (const r of rows) {
    it(`${r.name}: ${JSON.stringify(r.value)}`, () => {
      const env = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_HEADERS: r.value });
      assert.deepEqual(env.otlp?.headers ?? null, r.headers);
      assert.equal(
        env.problems.some((p) => p.variable === 'OTEL_EXPORTER_OTLP_HEADERS'),
        r.headers === null,
      );
    });
  }
});
