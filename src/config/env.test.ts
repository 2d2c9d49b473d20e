import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAP_GROWING_PERCENT } from '../util/heap-growth.js';
import { PROXY_BODY_LIMIT_BYTES } from '../http/proxy-routes.js';
import { headerBudgetMs } from '../proxy/header-budget.js';
import {
  assumeYes,
  dataDirFromEnv,
  DEFAULT_API_PORT,
  DEFAULT_DOCKER_SOCKET,
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_MIN_PREFILL_TOKENS_PER_SEC,
  MIN_PREFILL_TOKENS_PER_SEC_FLOOR,
  DEFAULT_ROUTING_LOG_SIZE,
  DEFAULT_SLOWER_PLACEMENT_FLOOR_MS,
  DEFAULT_SLOWER_PLACEMENT_RATIO,
  enginesFromEnv,
  EnvError,
  isTrue,
  loadEnv,
  processEnv,
} from './env.js';

type EnvCase<T> = { readonly name: string; readonly value: string | undefined; readonly expected: T };

describe('HUB_POOL_MAX_PROMPT_TOKENS', () => {
  const cases: EnvCase<number | null>[] = [
    { name: 'unset: no env ceiling', value: undefined, expected: null },
    { name: 'the lowest allowed, 1024', value: '1024', expected: 1024 },
    { name: 'the highest allowed, 1048576', value: '1048576', expected: 1_048_576 },
    { name: 'a typical 16000', value: '16000', expected: 16_000 },
    { name: 'surrounding whitespace is tolerated', value: ' 2048 ', expected: 2048 },
    { name: '1023, just below the range: ignored', value: '1023', expected: null },
    { name: '1048577, just above the range: ignored', value: '1048577', expected: null },
    { name: 'a fraction: ignored', value: '16000.5', expected: null },
    { name: 'a negative number: ignored', value: '-16000', expected: null },
    { name: 'exponent notation: ignored', value: '2e4', expected: null },
    { name: 'a word: ignored', value: 'lots', expected: null },
    { name: 'empty: ignored', value: '', expected: null },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(loadEnv({ HUB_POOL_MAX_PROMPT_TOKENS: c.value }).maxPromptTokens, c.expected));
  }
});

describe('HUB_POOL_ROUTING_LOG_SIZE', () => {
  const cases: EnvCase<number>[] = [
    { name: 'unset: 200', value: undefined, expected: DEFAULT_ROUTING_LOG_SIZE },
    { name: 'the lowest allowed, 200', value: '200', expected: 200 },
    { name: 'the highest allowed, 10000', value: '10000', expected: 10_000 },
    { name: 'inside the range, 5000', value: '5000', expected: 5000 },
    { name: '199, below the range: 200', value: '199', expected: 200 },
    { name: '10001, above the range: 200', value: '10001', expected: 200 },
    { name: 'a fraction: 200', value: '500.5', expected: 200 },
    { name: 'a word: 200', value: 'big', expected: 200 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(loadEnv({ HUB_POOL_ROUTING_LOG_SIZE: c.value }).routingLogSize, c.expected));
  }
});

describe('HUB_POOL_FIRST_BYTE_TIMEOUT_MS', () => {
  const cases: EnvCase<number>[] = [
    { name: 'unset: 300 s', value: undefined, expected: DEFAULT_FIRST_BYTE_TIMEOUT_MS },
    { name: 'a valid 600000', value: '600000', expected: 600_000 },
    { name: 'a valid 1', value: '1', expected: 1 },
    { name: 'zero: the default', value: '0', expected: DEFAULT_FIRST_BYTE_TIMEOUT_MS },
    { name: 'a negative number: the default', value: '-5', expected: DEFAULT_FIRST_BYTE_TIMEOUT_MS },
    { name: 'a fraction: the default', value: '1500.5', expected: DEFAULT_FIRST_BYTE_TIMEOUT_MS },
    { name: 'a word: the default', value: 'long', expected: DEFAULT_FIRST_BYTE_TIMEOUT_MS },
    { name: 'the longest a timer keeps', value: '2147483647', expected: 2_147_483_647 },
    { name: 'longer than a timer keeps: the default', value: '2147483648', expected: DEFAULT_FIRST_BYTE_TIMEOUT_MS },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(loadEnv({ HUB_POOL_FIRST_BYTE_TIMEOUT_MS: c.value }).firstByteTimeoutMs, c.expected));
  }
  it('defaults to 300000 ms', () => assert.equal(DEFAULT_FIRST_BYTE_TIMEOUT_MS, 300_000));
});

describe('HUB_HEAP_GROWING_PERCENT', () => {
  const cases: EnvCase<number>[] = [
    { name: 'unset: 100%', value: undefined, expected: HEAP_GROWING_PERCENT },
    { name: 'zero: V8 keeps its own rule', value: '0', expected: 0 },
    { name: 'a valid 50', value: '50', expected: 50 },
    { name: 'the most, 300', value: '300', expected: 300 },
    { name: 'above 300: the default', value: '301', expected: HEAP_GROWING_PERCENT },
    { name: 'a negative number: the default', value: '-5', expected: HEAP_GROWING_PERCENT },
    { name: 'a word: the default', value: 'tight', expected: HEAP_GROWING_PERCENT },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(loadEnv({ HUB_HEAP_GROWING_PERCENT: c.value }).heapGrowingPercent, c.expected));
  }
  it('defaults to 100%', () => assert.equal(HEAP_GROWING_PERCENT, 100));
});

describe('HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC', () => {
  const cases: EnvCase<number>[] = [
    { name: 'unset: 50 tok/s', value: undefined, expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
    { name: 'a valid 100', value: '100', expected: 100 },
    { name: 'a valid fraction 12.5', value: '12.5', expected: 12.5 },
    { name: 'zero: the default', value: '0', expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
    { name: 'a negative number: the default', value: '-1', expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
    { name: 'a word: the default', value: 'fast', expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
    { name: 'empty: the default', value: '', expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
    { name: 'Infinity: the default', value: 'Infinity', expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
    { name: `the floor, ${MIN_PREFILL_TOKENS_PER_SEC_FLOOR}`, value: String(MIN_PREFILL_TOKENS_PER_SEC_FLOOR), expected: MIN_PREFILL_TOKENS_PER_SEC_FLOOR },
    // 1e-306 made the deadline of a short prompt Infinity, which undici refuses: every pooled request failed as a transport error.
    { name: 'below the floor: the default', value: '1e-306', expected: DEFAULT_MIN_PREFILL_TOKENS_PER_SEC },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(loadEnv({ HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: c.value }).minPrefillTokensPerSec, c.expected));
  }
  it('keeps the deadline of the largest body the proxy takes a finite number of ms at any rate it accepts', () => {
    const budget = headerBudgetMs(PROXY_BODY_LIMIT_BYTES, DEFAULT_FIRST_BYTE_TIMEOUT_MS, MIN_PREFILL_TOKENS_PER_SEC_FLOOR);
    assert.ok(Number.isSafeInteger(budget), String(budget));
  });
  it('says why a rate below the floor is refused', () => {
    const [problem] = loadEnv({ HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: '1e-306' }).problems;
    assert.equal(problem?.problem, `is below ${MIN_PREFILL_TOKENS_PER_SEC_FLOOR}`);
  });
  it('defaults to 50 tok/s', () => assert.equal(DEFAULT_MIN_PREFILL_TOKENS_PER_SEC, 50));
});

describe('true-ish flags', () => {
  const cases: EnvCase<boolean>[] = [
    { name: '"true" is on', value: 'true', expected: true },
    { name: '"1" is on', value: '1', expected: true },
    { name: '"yes" is on', value: 'yes', expected: true },
    { name: '"on" is on', value: 'on', expected: true },
    { name: 'case and whitespace do not matter', value: '  TRUE ', expected: true },
    { name: 'unset is off', value: undefined, expected: false },
    { name: 'empty is off', value: '', expected: false },
    { name: '"false" is off', value: 'false', expected: false },
    { name: '"0" is off', value: '0', expected: false },
    { name: 'an unknown word is off', value: 'enabled', expected: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(isTrue(c.value), c.expected));
  }

  const switches: readonly { raw: Record<string, string>; expected: readonly [boolean, boolean, boolean] }[] = [
    { raw: {}, expected: [false, false, false] },
    { raw: { HUB_POOL_USER_DISABLED: 'true' }, expected: [true, false, false] },
    { raw: { HUB_POOL_OUTBOUND_DISABLED: 'true' }, expected: [false, true, false] },
    { raw: { HUB_POOL_INBOUND_DISABLED: 'true' }, expected: [false, false, true] },
  ];
  for (const c of switches) {
    it(`kill switches [user, outbound, inbound] with ${JSON.stringify(c.raw)}: ${JSON.stringify(c.expected)}`, () => {
      const env = loadEnv(c.raw);
      assert.deepEqual([env.userDisabled, env.outboundDisabled, env.inboundDisabled], c.expected);
    });
  }

  it('feeds the three kill-switch flags independently', () => {
    const env = loadEnv({ HUB_POOL_USER_DISABLED: 'true', HUB_POOL_OUTBOUND_DISABLED: '0', HUB_POOL_INBOUND_DISABLED: 'yes' });
    assert.deepEqual([env.userDisabled, env.outboundDisabled, env.inboundDisabled], [true, false, true]);
  });

  it('reads CI_HUB_ASSUME_YES as a yes word', () => {
    assert.equal(assumeYes({ CI_HUB_ASSUME_YES: 'on' }), true);
    assert.equal(assumeYes({ CI_HUB_ASSUME_YES: '0' }), false);
    assert.equal(assumeYes({ CI_HUB_ASSUME_YES: ' ' }), false);
    assert.equal(assumeYes({}), false);
  });

  it('refuses a CI_HUB_ASSUME_YES it cannot read, rather than quietly asking (or failing) as if it were unset', () => {
    for (const value of ['y', '2', 'always'])
      assert.throws(
        () => assumeYes({ CI_HUB_ASSUME_YES: value }),
        (err: unknown) =>
          err instanceof EnvError &&
          err.variable === 'CI_HUB_ASSUME_YES' &&
          err.message === `CI_HUB_ASSUME_YES=${value} is not one of true, false, 1, 0, yes, no, on, off: set it to 1, or unset it.`,
      );
  });
});

describe('engine URLs', () => {
  it('defaults to every engine at its usual port except llama.cpp, which is off until named', () => {
    assert.deepEqual(enginesFromEnv({}), [
      { id: 'ollama', kind: 'ollama', url: 'http://127.0.0.1:11434' },
      { id: 'vllm', kind: 'vllm', url: 'http://127.0.0.1:8000' },
      { id: 'lemonade', kind: 'lemonade', url: 'http://127.0.0.1:13305' },
      { id: 'omlx', kind: 'omlx', url: 'http://127.0.0.1:8000' },
    ]);
  });

  it('switches one engine off with an empty string and leaves the others at their defaults', () => {
    const kinds = enginesFromEnv({ VLLM_URL: '' }).map((e) => e.kind);
    assert.deepEqual(kinds, ['ollama', 'lemonade', 'omlx']);
  });

  it('switches an engine off with "off" too', () => {
    assert.deepEqual(
      enginesFromEnv({ OMLX_URL: 'off' }).map((e) => e.kind),
      ['ollama', 'vllm', 'lemonade'],
    );
  });

  it('switches every engine off when each is empty', () => {
    assert.deepEqual(enginesFromEnv({ OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' }), []);
  });

  it('gives each URL of a comma list its own numbered id and trims trailing slashes', () => {
    const engines = enginesFromEnv({ OLLAMA_URL: 'http://10.0.0.2:11434/, http://10.0.0.3:11434', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' });
    assert.deepEqual(engines, [
      { id: 'ollama-1', kind: 'ollama', url: 'http://10.0.0.2:11434' },
      { id: 'ollama-2', kind: 'ollama', url: 'http://10.0.0.3:11434' },
    ]);
  });

  it('skips empty entries of a list without reporting them', () => {
    const env = loadEnv({ OLLAMA_URL: 'http://a:1,, http://b:2,', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' });
    assert.deepEqual(
      env.engines.map((e) => e.url),
      ['http://a:1', 'http://b:2'],
    );
    assert.deepEqual(env.problems, []);
  });

  it('keeps a plain id for a single URL with a trailing comma', () => {
    assert.deepEqual(enginesFromEnv({ OLLAMA_URL: 'http://a:1,', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' }), [
      { id: 'ollama', kind: 'ollama', url: 'http://a:1' },
    ]);
  });

  it('turns llama.cpp on when LLAMACPP_URL names it', () => {
    const engines = enginesFromEnv({ OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: 'http://127.0.0.1:8080' });
    assert.deepEqual(engines, [{ id: 'llamacpp', kind: 'llamacpp', url: 'http://127.0.0.1:8080' }]);
  });

  it('loadEnv carries the same engine list, frozen', () => {
    const env = loadEnv({ VLLM_URL: '', OMLX_URL: '' });
    assert.deepEqual(
      env.engines.map((e) => e.id),
      ['ollama', 'lemonade'],
    );
    assert.ok(Object.isFrozen(env.engines));
  });
});

describe('slower-placement knobs', () => {
  const ratio: EnvCase<number>[] = [
    { name: 'unset: 3', value: undefined, expected: DEFAULT_SLOWER_PLACEMENT_RATIO },
    { name: 'exactly 1 is allowed', value: '1', expected: 1 },
    { name: 'a large 1000 is allowed (turns the rule off on its own)', value: '1000', expected: 1000 },
    { name: 'a fraction above 1 is allowed', value: '2.5', expected: 2.5 },
    { name: 'below 1: the default', value: '0.5', expected: DEFAULT_SLOWER_PLACEMENT_RATIO },
    { name: 'not a number: the default', value: 'fast', expected: DEFAULT_SLOWER_PLACEMENT_RATIO },
    { name: 'empty: the default', value: '', expected: DEFAULT_SLOWER_PLACEMENT_RATIO },
  ];
  for (const c of ratio) {
    it(`ratio ${c.name}`, () => assert.equal(loadEnv({ HUB_POOL_SLOWER_PLACEMENT_RATIO: c.value }).knobs.slowerPlacementRatio(), c.expected));
  }
  const floor: EnvCase<number>[] = [
    { name: 'unset: 20000', value: undefined, expected: DEFAULT_SLOWER_PLACEMENT_FLOOR_MS },
    { name: 'zero is allowed', value: '0', expected: 0 },
    { name: 'a valid 5000', value: '5000', expected: 5000 },
    { name: 'negative: the default', value: '-1', expected: DEFAULT_SLOWER_PLACEMENT_FLOOR_MS },
    { name: 'not a number: the default', value: 'soon', expected: DEFAULT_SLOWER_PLACEMENT_FLOOR_MS },
    { name: 'empty: the default, not zero', value: '', expected: DEFAULT_SLOWER_PLACEMENT_FLOOR_MS },
    { name: 'blank: the default, not zero', value: '  ', expected: DEFAULT_SLOWER_PLACEMENT_FLOOR_MS },
  ];
  for (const c of floor) {
    it(`floor ${c.name}`, () => assert.equal(loadEnv({ HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS: c.value }).knobs.slowerPlacementFloorMs(), c.expected));
  }
  it('defaults to ratio 3 and floor 20000 ms', () => {
    assert.deepEqual([DEFAULT_SLOWER_PLACEMENT_RATIO, DEFAULT_SLOWER_PLACEMENT_FLOOR_MS], [3, 20_000]);
  });
});

describe('per-request knobs read the environment at call time', () => {
  it('tailnetRequiresKey follows HUB_INFERENCE_TAILNET_AUTH as it changes after loadEnv', () => {
    const live: Record<string, string | undefined> = {};
    const env = loadEnv(live);
    assert.equal(env.knobs.tailnetRequiresKey(), false);
    live.HUB_INFERENCE_TAILNET_AUTH = ' Require-Key ';
    assert.equal(env.knobs.tailnetRequiresKey(), true);
    live.HUB_INFERENCE_TAILNET_AUTH = 'allow';
    assert.equal(env.knobs.tailnetRequiresKey(), false);
  });

  it('throughput and contention placement are on unless switched off, and follow later changes', () => {
    const live: Record<string, string | undefined> = {};
    const { knobs } = loadEnv(live);
    assert.deepEqual([knobs.throughputPlacement(), knobs.contentionPlacement()], [true, true]);
    live.HUB_POOL_THROUGHPUT_PLACEMENT = 'off';
    live.HUB_POOL_CONTENTION_PLACEMENT = '0';
    assert.deepEqual([knobs.throughputPlacement(), knobs.contentionPlacement()], [false, false]);
    live.HUB_POOL_THROUGHPUT_PLACEMENT = 'false';
    live.HUB_POOL_CONTENTION_PLACEMENT = 'on';
    assert.deepEqual([knobs.throughputPlacement(), knobs.contentionPlacement()], [false, true]);
  });

  it('the slower-placement ratio follows a later change too', () => {
    const live: Record<string, string | undefined> = {};
    const { knobs } = loadEnv(live);
    live.HUB_POOL_SLOWER_PLACEMENT_RATIO = '5';
    assert.equal(knobs.slowerPlacementRatio(), 5);
    delete live.HUB_POOL_SLOWER_PLACEMENT_RATIO;
    assert.equal(knobs.slowerPlacementRatio(), DEFAULT_SLOWER_PLACEMENT_RATIO, 'unset again: the default again');
    live.HUB_POOL_SLOWER_PLACEMENT_RATIO = '5';
    assert.equal(knobs.slowerPlacementRatio(), 5, 'and back');
  });

  it('start-up values do not follow later changes', () => {
    const live: Record<string, string | undefined> = { HUB_POOL_ROUTING_LOG_SIZE: '500' };
    const env = loadEnv(live);
    live.HUB_POOL_ROUTING_LOG_SIZE = '900';
    assert.equal(env.routingLogSize, 500);
    assert.ok(Object.isFrozen(env));
  });
});

describe('port, host and data dir', () => {
  it('defaults to port 5002 on loopback and ~/.cihub', () => {
    const env = loadEnv({});
    assert.equal(env.port, DEFAULT_API_PORT);
    assert.equal(env.port, 5002);
    assert.equal(env.host, '127.0.0.1');
    assert.equal(env.dataDir, join(homedir(), '.cihub'));
  });

  it('reads API_PORT, HUB_HOST and CIHUB_DATA_DIR, and lets flags override them', () => {
    const raw = { API_PORT: '5102', HUB_HOST: '0.0.0.0', CIHUB_DATA_DIR: '/tmp/hub-a' };
    assert.deepEqual([loadEnv(raw).port, loadEnv(raw).host, loadEnv(raw).dataDir], [5102, '0.0.0.0', '/tmp/hub-a']);
    const flagged = loadEnv(raw, { port: 0, host: '127.0.0.2', dataDir: '/tmp/hub-b' });
    assert.deepEqual([flagged.port, flagged.host, flagged.dataDir], [0, '127.0.0.2', '/tmp/hub-b']);
  });

  it('refuses an API_PORT that is not a port rather than binding another one', () => {
    assert.throws(() => loadEnv({ API_PORT: '70000' }), /^EnvError: API_PORT=70000 is above 65535/);
    assert.throws(() => loadEnv({ API_PORT: '50o2' }), /^EnvError: API_PORT=50o2 is not a whole number/);
  });

  it('refuses a HUB_INFERENCE_TAILNET_AUTH it cannot read rather than admitting tailnet callers without a key', () => {
    // A security setting whose default is the open one: a value it cannot read has no default either.
    for (const typo of ['require_key', 'true', 'on'])
      assert.throws(() => loadEnv({ HUB_INFERENCE_TAILNET_AUTH: typo }), new RegExp(`^EnvError: HUB_INFERENCE_TAILNET_AUTH=${typo} is not require-key`));
    assert.equal(loadEnv({ HUB_INFERENCE_TAILNET_AUTH: 'Require-Key' }).knobs.tailnetRequiresKey(), true);
  });

  it('listens on an IP literal or a host name given in HUB_HOST or --host', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'fd7a:115c:a1e0::1', 'localhost', 'hub-a.tail1234.ts.net', 'hub-a.example.']) {
      assert.equal(loadEnv({ HUB_HOST: host }).host, host);
      assert.equal(loadEnv({}, { host }).host, host);
    }
  });

  it('refuses a HUB_HOST that is neither an IP address nor a host name, naming the variable', () => {
    // 300.1.1.1 and 10.1: all digits, so read as IPv4 (and not one) rather than looked up as a name.
    for (const host of ['not a host!', 'http://127.0.0.1', '[::1]', '127.0.0.1:5002', 'hub_a', '-hub', `${'a'.repeat(64)}.example`, '300.1.1.1', '10.1']) {
      assert.throws(
        () => loadEnv({ HUB_HOST: host }),
        (err: unknown) =>
          err instanceof EnvError && err.variable === 'HUB_HOST' && err.message === `HUB_HOST=${host} is not an IP address or a host name: fix or unset it.`,
        host,
      );
    }
  });

  it('refuses a --host that is neither, naming the flag, and lets a good --host stand over a bad HUB_HOST', () => {
    assert.throws(
      () => loadEnv({}, { host: 'nowhere!' }),
      (err: unknown) => err instanceof EnvError && err.variable === '--host' && /^--host "nowhere!" is not an IP address or a host name/.test(err.message),
    );
    assert.equal(loadEnv({ HUB_HOST: 'not a host!' }, { host: '127.0.0.1' }).host, '127.0.0.1');
  });

  it('treats a blank CIHUB_DATA_DIR as unset', () => {
    assert.equal(dataDirFromEnv({ CIHUB_DATA_DIR: '  ' }), join(homedir(), '.cihub'));
  });
});

/** Whether this machine has a Docker socket at the usual path, as the Hub looks for one at start. */
function dockerSocketPresent(): boolean {
  try {
    return statSync(DEFAULT_DOCKER_SOCKET).isSocket();
  } catch {
    return false;
  }
}

describe('container counts: HUB_DOCKER_SOCKET and HUB_COMPOSE_PROJECTS', () => {
  it('looks for Docker at its usual socket path', () => assert.equal(DEFAULT_DOCKER_SOCKET, '/var/run/docker.sock'));

  it('with HUB_DOCKER_SOCKET unset, uses the usual socket when one exists there, else none', () => {
    assert.equal(loadEnv({}).dockerSocket, dockerSocketPresent() ? DEFAULT_DOCKER_SOCKET : null);
  });

  it('takes the socket as given, and "off" as none', () => {
    assert.equal(loadEnv({ HUB_DOCKER_SOCKET: '/tmp/d.sock' }).dockerSocket, '/tmp/d.sock');
    assert.equal(loadEnv({ HUB_DOCKER_SOCKET: 'off' }).dockerSocket, null);
  });

  const table: readonly { value: string; projects: readonly string[] | null; problem: boolean }[] = [
    { value: 'lab', projects: ['lab'], problem: false },
    { value: 'lab, ci-hub_2 ,', projects: ['lab', 'ci-hub_2'], problem: false },
    { value: 'Lab', projects: null, problem: true },
    { value: 'lab,../x', projects: null, problem: true },
    { value: ',', projects: null, problem: true },
    // A compose project name is at most 63 characters, every one of them lower case, a digit, - or _.
    { value: 'a'.repeat(63), projects: ['a'.repeat(63)], problem: false },
    { value: 'a'.repeat(64), projects: null, problem: true },
    { value: 'lab.x', projects: null, problem: true },
    { value: 'lab/x', projects: null, problem: true },
  ];
  for (const c of table) {
    it(`HUB_COMPOSE_PROJECTS=${JSON.stringify(c.value)}: ${c.problem ? "refused, the Hub's own project is used" : c.projects?.join(' + ')}`, () => {
      const env = loadEnv({ HUB_COMPOSE_PROJECTS: c.value, HUB_DOCKER_SOCKET: '/tmp/d.sock' });
      assert.deepEqual(env.composeProjects, c.projects);
      assert.equal(
        env.problems.some((p) => p.variable === 'HUB_COMPOSE_PROJECTS'),
        c.problem,
      );
    });
  }
});

describe('HUB_COMPOSE_PROJECTS with no socket to count them through', () => {
  it('is reported when HUB_DOCKER_SOCKET is off: nothing will be counted', () => {
    const env = loadEnv({ HUB_COMPOSE_PROJECTS: 'lab', HUB_DOCKER_SOCKET: 'off' });
    assert.deepEqual(env.problems, [
      { variable: 'HUB_COMPOSE_PROJECTS', value: 'lab', problem: 'is set, but HUB_DOCKER_SOCKET is off', usedInstead: 'no container counts' },
    ]);
  });

  it(
    'is reported when no socket is named and none is at the usual path, saying where it looked',
    { skip: dockerSocketPresent() && 'a Docker socket is at the usual path here' },
    () => {
      const problems = loadEnv({ HUB_COMPOSE_PROJECTS: 'lab' }).problems.map((p) => p.problem);
      assert.deepEqual(problems, [`is set, but there is no Docker socket at ${DEFAULT_DOCKER_SOCKET} (mount it, or name one with HUB_DOCKER_SOCKET)`]);
    },
  );
});

describe('the words a flag takes', () => {
  const words: readonly { value: string; on: boolean }[] = [
    { value: 'true', on: true },
    { value: '1', on: true },
    { value: 'yes', on: true },
    { value: 'on', on: true },
    { value: 'YES', on: true },
    { value: 'false', on: false },
    { value: '0', on: false },
    { value: 'no', on: false },
    { value: 'off', on: false },
    { value: 'Off', on: false },
  ];
  for (const w of words) {
    it(`HUB_POOL_USER_DISABLED=${w.value} reads as ${w.on ? 'on' : 'off'}, with no warning`, () => {
      const env = loadEnv({ HUB_POOL_USER_DISABLED: w.value });
      assert.equal(env.userDisabled, w.on);
      assert.deepEqual(env.problems, []);
    });
  }

  // The off words also switch an engine off, and Docker collection.
  for (const w of words.filter((x) => !x.on)) {
    it(`OLLAMA_URL=${w.value} switches Ollama off, and HUB_DOCKER_SOCKET=${w.value} switches container counts off`, () => {
      const env = loadEnv({ OLLAMA_URL: w.value, HUB_DOCKER_SOCKET: w.value });
      assert.deepEqual(
        env.engines.map((e) => e.kind),
        ['vllm', 'lemonade', 'omlx'],
      );
      assert.equal(env.dockerSocket, null);
    });
  }
});

describe('HUB_LOG_LEVEL', () => {
  it('is info when unset', () => assert.equal(loadEnv({}).logLevel, 'info'));
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
    it(`takes ${level}`, () => {
      const env = loadEnv({ HUB_LOG_LEVEL: level });
      assert.equal(env.logLevel, level);
      assert.deepEqual(env.problems, []);
    });
  }
  it('takes a level in any case, as the switches and cihub logs --level do', () => {
    const env = loadEnv({ HUB_LOG_LEVEL: 'DEBUG' });
    assert.equal(env.logLevel, 'debug');
    assert.deepEqual(env.problems, []);
  });
});

describe('the ends of each whole-number range are accepted', () => {
  const rows: readonly { variable: string; value: string; read: (e: ReturnType<typeof loadEnv>) => unknown; expected: number }[] = [
    { variable: 'API_PORT', value: '0', read: (e) => e.port, expected: 0 },
    { variable: 'API_PORT', value: '65535', read: (e) => e.port, expected: 65_535 },
    { variable: 'HUB_POOL_PREFIX_AFFINITY_TTL_MS', value: '1', read: (e) => e.prefixAffinityTtlMs, expected: 1 },
    { variable: 'HUB_POOL_PREFIX_AFFINITY_TTL_MS', value: '86400000', read: (e) => e.prefixAffinityTtlMs, expected: 86_400_000 },
    { variable: 'OTEL_BSP_SCHEDULE_DELAY', value: '1', read: (e) => e.otlp?.intervalMs, expected: 1 },
    { variable: 'OTEL_BSP_SCHEDULE_DELAY', value: '3600000', read: (e) => e.otlp?.intervalMs, expected: 3_600_000 },
  ];
  for (const r of rows) {
    it(`${r.variable}=${r.value}`, () => {
      const env = loadEnv({ [r.variable]: r.value, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
      assert.equal(r.read(env), r.expected);
      assert.deepEqual(env.problems, []);
    });
  }
});

describe('engine and collector addresses', () => {
  const engineRows: readonly { value: string; urls: readonly string[] }[] = [
    { value: 'http://10.0.0.2:11434//', urls: ['http://10.0.0.2:11434'] },
    { value: 'HTTPS://ollama.lan', urls: ['HTTPS://ollama.lan'] },
    { value: 'not a url', urls: [] },
    { value: 'git+https://ollama.lan', urls: [] },
    { value: 'ftp://ollama.lan', urls: [] },
  ];
  for (const r of engineRows) {
    it(`OLLAMA_URL=${r.value}: ${r.urls.length === 0 ? 'skipped, and reported' : r.urls.join(', ')}`, () => {
      const env = loadEnv({ OLLAMA_URL: r.value, VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' });
      assert.deepEqual(
        env.engines.map((e) => e.url),
        r.urls,
      );
      assert.deepEqual(
        env.problems.map((p) => p.variable),
        r.urls.length === 0 ? ['OLLAMA_URL'] : [],
      );
    });
  }

  it('exports to <endpoint>/v1/traces with every trailing slash of the endpoint dropped', () => {
    assert.equal(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318//' }).otlp?.tracesUrl, 'http://collector:4318/v1/traces');
  });

  it('exports with no headers, as cihub, every 5 s, when only the endpoint is set', () => {
    assert.deepEqual(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).otlp, {
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: {},
      serviceName: 'cihub',
      intervalMs: 5000,
    });
  });

  it('warns at start about each export variable set with no endpoint to export to, the headers without their value', () => {
    const env = loadEnv({ OTEL_SERVICE_NAME: 'hub-a', OTEL_EXPORTER_OTLP_HEADERS: 'x-key=secret', OTEL_BSP_SCHEDULE_DELAY: '50' });
    assert.equal(env.otlp, null);
    assert.deepEqual(
      env.problems.map((p) => [p.variable, p.value, p.problem, p.usedInstead]),
      ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_SERVICE_NAME', 'OTEL_BSP_SCHEDULE_DELAY'].map((variable) => [
        variable,
        variable === 'OTEL_EXPORTER_OTLP_HEADERS' ? '(hidden: it may hold a credential)' : variable === 'OTEL_SERVICE_NAME' ? 'hub-a' : '50',
        'is set, but neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is',
        'no trace export',
      ]),
    );
  });

  it('says nothing about export variables under OTEL_SDK_DISABLED, which switches export off on purpose', () => {
    assert.deepEqual(loadEnv({ OTEL_SERVICE_NAME: 'hub-a', OTEL_SDK_DISABLED: 'true' }).problems, []);
  });

  it('names each OTEL_ variable it does not read when it exports, quoting no value that may be a credential', () => {
    const env = loadEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-key=secret',
      OTEL_TRACES_SAMPLER: '  ',
    });
    assert.notEqual(env.otlp, null, 'an unread variable does not stop the export');
    assert.deepEqual(
      env.problems.map((p) => [p.variable, p.value]),
      [
        ['OTEL_BSP_MAX_QUEUE_SIZE', '4096'],
        ['OTEL_EXPORTER_OTLP_METRICS_HEADERS', '(hidden: it may hold a credential)'],
      ],
    );
    assert.match(env.problems[0]!.problem, /^is not a variable this Hub reads/);
  });

  it('says nothing of an OTEL_ variable it does not read while it exports nothing', () => {
    assert.deepEqual(loadEnv({ OTEL_BSP_MAX_QUEUE_SIZE: '4096' }).problems, []);
  });

  it('exports with the traces endpoint alone, no base endpoint needed', () => {
    assert.equal(loadEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/v1/traces' }).otlp?.tracesUrl, 'https://b/otlp/v1/traces');
  });
});

describe('tailnet identity and secrets', () => {
  it('reads nothing from tailscale stand-ins when they are unset', () => {
    const env = loadEnv({});
    assert.deepEqual(
      [env.nodeFqdn, env.tailnetSuffix, env.peerOriginsRaw, env.identitySecret, env.tailscaleOAuth, env.tailscaleAdminApiConfigured],
      [null, null, null, null, null, false],
    );
  });

  it('takes HUB_NODE_FQDN, HUB_TAILNET_SUFFIX and HUB_POOL_PEER_ORIGINS as given', () => {
    const env = loadEnv({
      HUB_NODE_FQDN: 'core-1.tail.ts.net',
      HUB_TAILNET_SUFFIX: 'tail.ts.net',
      HUB_POOL_PEER_ORIGINS: 'core-2.tail.ts.net=http://127.0.0.1:5102',
    });
    assert.deepEqual([env.nodeFqdn, env.tailnetSuffix, env.peerOriginsRaw], ['core-1.tail.ts.net', 'tail.ts.net', 'core-2.tail.ts.net=http://127.0.0.1:5102']);
  });

  const standIns: readonly { variable: 'HUB_NODE_FQDN' | 'HUB_TAILNET_SUFFIX'; value: string; parsed: string | null; problem?: RegExp }[] = [
    { variable: 'HUB_NODE_FQDN', value: 'Core-1.Tail1234.ts.net.', parsed: 'core-1.tail1234.ts.net' },
    { variable: 'HUB_NODE_FQDN', value: 'core-1', parsed: null, problem: /is a single label/ },
    { variable: 'HUB_NODE_FQDN', value: 'https://core-1.tail1234.ts.net', parsed: null, problem: /has a scheme/ },
    { variable: 'HUB_NODE_FQDN', value: 'core-1.tail1234.ts.net:443', parsed: null, problem: /has a port/ },
    { variable: 'HUB_NODE_FQDN', value: '100.101.1.2', parsed: null, problem: /is an IP literal/ },
    { variable: 'HUB_TAILNET_SUFFIX', value: '.Tail1234.ts.net', parsed: 'tail1234.ts.net' },
    { variable: 'HUB_TAILNET_SUFFIX', value: 'tail 1234', parsed: null, problem: /is not a DNS suffix/ },
    { variable: 'HUB_TAILNET_SUFFIX', value: 'tail1234..ts.net', parsed: null, problem: /is not a DNS suffix/ },
    // No name under these could be a peer's (peer-name.ts refuses a numeric last label), so pairing would refuse every Hub.
    { variable: 'HUB_TAILNET_SUFFIX', value: '100.64.0.1', parsed: null, problem: /is an IP address, not a DNS suffix/ },
    { variable: 'HUB_TAILNET_SUFFIX', value: 'tail1234.42', parsed: null, problem: /ends in a numeric label/ },
  ];
  for (const c of standIns) {
    it(`${c.variable}=${c.value}: ${c.parsed === null ? 'refused with a start-up warning, as if unset' : `read as ${c.parsed}, with no warning`}`, () => {
      const env = loadEnv({ [c.variable]: c.value });
      assert.equal(c.variable === 'HUB_NODE_FQDN' ? env.nodeFqdn : env.tailnetSuffix, c.parsed);
      const problems = env.problems.filter((p) => p.variable === c.variable);
      if (c.problem === undefined) assert.deepEqual(problems, []);
      else {
        assert.equal(problems.length, 1);
        assert.equal(problems[0]!.value, c.value);
        assert.match(problems[0]!.problem, c.problem);
        assert.match(problems[0]!.usedInstead, /no stand-in/);
      }
    });
  }

  it("sets aside a HUB_TAILNET_SUFFIX that HUB_NODE_FQDN is not under, with a warning, for the name's own suffix", () => {
    const env = loadEnv({ HUB_NODE_FQDN: 'hub-a.tail0.ts.net', HUB_TAILNET_SUFFIX: 'other1.ts.net' });
    assert.deepEqual([env.nodeFqdn, env.tailnetSuffix], ['hub-a.tail0.ts.net', null]);
    assert.deepEqual(env.problems, [
      {
        variable: 'HUB_TAILNET_SUFFIX',
        value: 'other1.ts.net',
        problem: 'is not the suffix of HUB_NODE_FQDN=hub-a.tail0.ts.net',
        usedInstead: "tail0.ts.net, the name's own suffix",
      },
    ]);
  });

  it('takes a HUB_TAILNET_SUFFIX that ends the name further up, as a parent domain of its own', () => {
    const env = loadEnv({ HUB_NODE_FQDN: 'hub-a.lab.tail0.ts.net', HUB_TAILNET_SUFFIX: 'tail0.ts.net' });
    assert.deepEqual([env.tailnetSuffix, env.problems], ['tail0.ts.net', []]);
  });

  it('uses HUB_POOL_IDENTITY_SECRET exactly as given, spaces and all; an empty or blank one is none', () => {
    assert.equal(loadEnv({ HUB_POOL_IDENTITY_SECRET: ' s3cret ' }).identitySecret, ' s3cret ');
    assert.equal(loadEnv({ HUB_POOL_IDENTITY_SECRET: '' }).identitySecret, null);
    assert.equal(loadEnv({ HUB_POOL_IDENTITY_SECRET: ' \t ' }).identitySecret, null);
  });

  const oauth: readonly { name: string; raw: Record<string, string>; configured: boolean }[] = [
    { name: 'both set', raw: { TAILSCALE_OAUTH_CLIENT_ID: 'id', TAILSCALE_OAUTH_CLIENT_SECRET: 'sec' }, configured: true },
    { name: 'only the id', raw: { TAILSCALE_OAUTH_CLIENT_ID: 'id' }, configured: false },
    { name: 'only the secret', raw: { TAILSCALE_OAUTH_CLIENT_SECRET: 'sec' }, configured: false },
  ];
  for (const c of oauth) {
    it(`configures the Admin API client only when both halves are set: ${c.name}`, () => {
      const env = loadEnv(c.raw);
      assert.equal(env.tailscaleAdminApiConfigured, c.configured);
      assert.deepEqual(env.tailscaleOAuth, c.configured ? { clientId: 'id', clientSecret: 'sec' } : null);
    });
  }
});

describe('executables found on PATH at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'env-path-'));
  for (const name of ['tailscale', 'nvidia-smi']) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records where tailscale and nvidia-smi are', () => {
    const env = loadEnv({ PATH: dir });
    assert.deepEqual([env.tailscaleBinary, env.nvidiaSmiBinary], [join(dir, 'tailscale'), join(dir, 'nvidia-smi')]);
  });

  it('records none when PATH holds neither', () => {
    const env = loadEnv({ PATH: join(dir, 'absent') });
    assert.deepEqual([env.tailscaleBinary, env.nvidiaSmiBinary], [null, null]);
  });
});

describe('processEnv', () => {
  it('hands out the process environment itself', () => assert.equal(processEnv(), process.env));
});
