/**
 * Prompt ceilings and context caps through three real Hubs on loopback, each fronting a simulated
 * Ollama (issue 10, items 3 and 4), and the fleet incidents they answer, reproduced first:
 *
 * - the issue's own repro: with hub-a's ceiling at 1024, a ~10k-token turn still ran on hub-a
 *   while hub-b (no ceiling) held the model;
 * - the HERMES_NUM_CTX cap (2026-09-21): the handout took the smallest cap among the nodes, so
 *   one 16384-capped batch node (here hub-c) capped the whole fleet's agents;
 * - the 44 GB reload (2026-09-20): apps asked for a window the engine did not run, and every
 *   request at another size reloaded the model (here hub-a's engine runs 16384).
 *
 * hub-a is the entry node throughout. hub-b runs its engine at 65536 and states that cap from the
 * start; hub-c states a 16384 cap and a 1024 ceiling through HUB_POOL_MAX_PROMPT_TOKENS. The
 * Hubs poll each other every 300 s, so every decision reads the snapshot pairing left, and each
 * change under test is hub-a's own, which applies on its next request.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { header, POOL_API, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const M = 'qwen3-coder:30b'; // on all three
const ONLY_C = 'batch:8b'; // on hub-c only
/** ~10k estimated tokens: a 40 KB turn, the size the repro sent. */
const LONG = 'x '.repeat(20_000);

type L = 'a' | 'b' | 'c';

describe('prompt ceilings and context caps across three Hubs', () => {
  const pool = usePool<L>({
    hubs: {
      a: { ollama: { models: [M], keepAliveMs: -1, defaultNumCtx: 16_384 } },
      b: { ollama: { models: [M], keepAliveMs: -1, defaultNumCtx: 65_536 }, settings: { inferenceMaxNumCtx: 65_536 } },
      c: {
        ollama: { models: [M, ONLY_C], keepAliveMs: -1, defaultNumCtx: 16_384 },
        settings: { inferenceMaxNumCtx: 16_384 },
        env: { HUB_POOL_MAX_PROMPT_TOKENS: '1024' },
      },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    settings: { poolHealthPollSeconds: 300 },
  });
  const cli = (...args: string[]) => runCli(['pool', ...args, '--yes'], { dataDir: pool().a.dataDir });

  const handout = async (model: string) =>
    pool().a.api<{ numCtx: number | null; nodes: { node: string; maxNumCtx: number | null }[] }>(
      'GET',
      `${POOL_API}/handout?model=${encodeURIComponent(model)}`,
    );
  const longTurn = () => post(pool().a, '/v1/chat/completions', { model: M, messages: [{ role: 'user', content: LONG }] });
  const shortTurn = () => post(pool().a, '/v1/chat/completions', { model: M, messages: [{ role: 'user', content: 'hello' }] });

  it("hub-a sees each peer's advertised ceiling and cap, and says where its own come from", { timeout: TEST_TIMEOUT_MS }, async () => {
    const status = await pool().a.status();
    const peer = (name: string) => status.peers.find((p) => p.nodeFqdn === name)!;
    assert.deepEqual([peer(pool().b.name).maxNumCtx, peer(pool().b.name).maxPromptTokens], [65_536, null]);
    assert.deepEqual([peer(pool().c.name).maxNumCtx, peer(pool().c.name).maxPromptTokens], [16_384, 1024]);
    const c = await pool().c.status();
    assert.deepEqual([c.localNode.maxPromptTokens, c.localNode.maxPromptTokensSetBy, c.localNode.maxNumCtx], [1024, 'env', 16_384]);
  });

  describe('the HERMES_NUM_CTX cap incident (2026-09-21)', () => {
    it('hands no cap while a node serving the model states none, however low another is capped', { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await handout(M);
      assert.equal(res.status, 200, JSON.stringify(res.json));
      // The old rule (the smallest cap) answered 16384 here, below the 64,000 Hermes needs for tool use.
      assert.equal(res.json.numCtx, null);
      assert.deepEqual(
        res.json.nodes.map((n) => [n.node, n.maxNumCtx]),
        [
          ['local', null],
          [pool().b.name, 65_536],
          [pool().c.name, 16_384],
        ],
      );
    });

    it('counts only the nodes serving that model', { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await handout(ONLY_C);
      assert.equal(res.json.numCtx, 16_384);
      assert.deepEqual(
        res.json.nodes.map((n) => n.node),
        [pool().c.name],
      );
      const none = await handout('nobody-serves:1b');
      assert.equal(none.status, 404);
    });
  });

  describe('the 44 GB reload incident (2026-09-20)', () => {
    it(
      "without a cap, a request at another window reloads hub-a's engine, and the next default-window request flips it back",
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        const engine = pool().a.engines.ollama!;
        const loadsBefore = engine.state().perModel[M]!.loads;
        const big = await post(pool().a, '/api/chat', { model: M, messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_ctx: 65_536 } });
        assert.equal(big.status, 200, big.text);
        assert.equal(header(big, 'x-hub-pool-served-by'), 'local');
        assert.equal(engine.state().loadedNumCtx[M], 65_536);
        const small = await shortTurn();
        assert.equal(header(small, 'x-hub-pool-served-by'), 'local');
        assert.equal(engine.state().loadedNumCtx[M], 16_384);
        assert.equal(engine.state().perModel[M]!.loads, loadsBefore + 2, 'two full reloads of the model');
      },
    );

    it("with hub-a capped at its engine's window, the 65536 request goes to hub-b and hub-a's engine never reloads", { timeout: TEST_TIMEOUT_MS }, async () => {
      const set = await cli('context-cap', '16384');
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /context cap is num_ctx 16384/);
      const engine = pool().a.engines.ollama!;
      const loadsBefore = engine.state().perModel[M]!.loads;

      const big = await post(pool().a, '/api/chat', { model: M, messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_ctx: 65_536 } });
      assert.equal(big.status, 200, big.text);
      assert.equal(header(big, 'x-hub-pool-served-by'), pool().b.name);
      const row = await pool().a.settledRow(header(big, 'x-hub-pool-request-id')!);
      assert.deepEqual(row.contextCap, {
        numCtx: 65_536,
        source: 'request',
        excluded: [
          { node: 'local', maxNumCtx: 16_384 },
          { node: pool().c.name, maxNumCtx: 16_384 },
        ],
        overridden: false,
      });

      const small = await shortTurn();
      assert.equal(header(small, 'x-hub-pool-served-by'), 'local');
      assert.equal(engine.state().perModel[M]!.loads, loadsBefore, 'no reload on hub-a');
      assert.equal(engine.state().loadedNumCtx[M], 16_384);

      // Every node is capped now: the handout is the largest cap among them, and the status block warns that they differ.
      assert.equal((await handout(M)).json.numCtx, 65_536);
      const status = await runCli(['pool', 'status'], { dataDir: pool().a.dataDir });
      assert.match(status.stdout, /Context caps \(/);
      assert.match(status.stdout, /! caps differ \(16384, 65536\)/);
    });

    it('a request with no num_ctx is judged on its prompt estimate against the caps', { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await post(pool().a, '/v1/chat/completions', { model: M, messages: [{ role: 'user', content: 'y'.repeat(80_000) }] });
      assert.equal(res.status, 200, res.text);
      assert.equal(header(res, 'x-hub-pool-served-by'), pool().b.name);
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.equal(row.contextCap?.source, 'estimated');
      assert.ok(row.contextCap!.numCtx > 16_384);
    });

    it('clear removes the cap: the node reads as taking any window again', { timeout: TEST_TIMEOUT_MS }, async () => {
      const cleared = await cli('context-cap', 'clear');
      assert.equal(cleared.code, 0, cleared.stderr);
      assert.equal((await pool().a.status()).localNode.maxNumCtx, null);
      assert.equal((await handout(M)).json.numCtx, null);
    });
  });

  it('a ceiling or cap out of range is refused by name, and nothing changes', { timeout: TEST_TIMEOUT_MS }, async () => {
    const low = await cli('ceiling', '512');
    assert.notEqual(low.code, 0);
    assert.match(low.stderr, /Nothing was changed: poolMaxPromptTokens must be a whole number from 1024 to 1048576, or null; got 512/);
    const word = await cli('context-cap', 'lots');
    assert.notEqual(word.code, 0);
    assert.match(word.stderr, /the context cap must be a whole number of tokens, or clear; got "lots"/);
    const status = await pool().a.status();
    assert.deepEqual([status.settings.poolMaxPromptTokens, status.localNode.maxNumCtx], [null, null]);
  });

  describe("the 2026-09-17 184 KB turn (no first byte in 922 s on CPU): hub-a's ceiling at 1024, a ~10k-token turn", () => {
    it('goes to hub-b, which has no ceiling, and the row says the ceiling moved hub-a and hub-c', { timeout: TEST_TIMEOUT_MS }, async () => {
      const set = await cli('ceiling', '1024');
      assert.equal(set.code, 0, set.stderr);
      const res = await longTurn();
      assert.equal(res.status, 200, res.text);
      assert.equal(header(res, 'x-hub-pool-served-by'), pool().b.name);
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.ok(row.promptCeiling!.estimatedTokens > 10_000 && row.promptCeiling!.estimatedTokens < 10_100, JSON.stringify(row.promptCeiling));
      assert.deepEqual(row.promptCeiling!.excluded, [
        { node: 'local', maxPromptTokens: 1024 },
        { node: pool().c.name, maxPromptTokens: 1024 },
      ]);
      assert.equal(row.promptCeiling!.overridden, false);
      const log = await runCli(['pool', 'log', '--limit', '1'], { dataDir: pool().a.dataDir });
      assert.match(log.stdout, /↳ moved local \(ceiling 1024\), hub-c\.tail0\.ts\.net \(ceiling 1024\) behind nodes under their prompt ceiling/);
    });

    it('a short turn stays on hub-a: only prompts over the ceiling move', { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await shortTurn();
      assert.equal(header(res, 'x-hub-pool-served-by'), 'local');
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.deepEqual(row.promptCeiling?.excluded, []);
    });

    it('embeddings are not judged by the ceiling', { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await post(pool().a, '/v1/embeddings', { model: M, input: LONG });
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.equal(row.promptCeiling, null);
      assert.equal(row.contextCap, null);
    });

    it('when hub-b fails, the turn still lands on an over-ceiling node and the row says overridden', { timeout: TEST_TIMEOUT_MS }, async () => {
      const b = pool().b.engines.ollama!;
      await b.setFaults([{ mode: 'error', status: 503, model: M, count: 1 }]);
      const res = await longTurn();
      assert.equal(res.status, 200, res.text);
      assert.equal(header(res, 'x-hub-pool-served-by'), 'local');
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.equal(row.promptCeiling!.overridden, true);
      assert.deepEqual(row.failedOverFrom, [pool().b.name]);
    });

    it('at the default (ceiling cleared) the long turn stays on hub-a, as the ranker put it', { timeout: TEST_TIMEOUT_MS }, async () => {
      const cleared = await cli('ceiling', 'clear');
      assert.equal(cleared.code, 0, cleared.stderr);
      const res = await longTurn();
      assert.equal(header(res, 'x-hub-pool-served-by'), 'local');
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      // hub-c still states its ceiling, so the record is there, but it moved only hub-c.
      assert.deepEqual(row.promptCeiling?.excluded, [{ node: pool().c.name, maxPromptTokens: 1024 }]);
    });
  });
});
