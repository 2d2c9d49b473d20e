import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel } from 'node-llama-cpp';
import { buildModelFile, ensureModel, MODEL_SPECS, parameterCount } from './tiny-model.js';
import { BOS_ID, buildVocabulary, EOS_ID, FIRST_BYTE_ID, IM_END_ID, IM_START_ID, TokenType, VOCAB_SIZE } from './vocab.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('generated models', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cihub-models-test-'));
  let llama: Llama;
  let model: LlamaModel;

  before(async () => {
    llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, maxThreads: 1, progressLogs: false, logLevel: LlamaLogLevel.error });
    model = await llama.loadModel({ modelPath: ensureModel('tiny', dir).path });
  });
  after(async () => {
    await model.dispose();
    await llama.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is generated once into the cache and then reused, under a name that carries its recipe hash', () => {
    const again = ensureModel('tiny', dir);
    assert.equal(again.created, false);
    assert.match(again.path, /cihub-tiny-[0-9a-f]{16}\.gguf$/);
    assert.equal(again.name, 'cihub-tiny:latest');
    assert.equal(sha(readFileSync(again.path)), sha(buildModelFile('tiny')), 'the same recipe gives the same bytes');
  });

  it('has the sizes the issue describes: about 1 MB tiny and about 7 MB medium', () => {
    const tiny = statSync(ensureModel('tiny', dir).path).size;
    assert.ok(tiny > 0.8e6 && tiny < 1.3e6, `tiny is ${tiny} bytes`);
    assert.ok(parameterCount(MODEL_SPECS.medium) * 2 > 5e6 && parameterCount(MODEL_SPECS.medium) * 2 < 8e6);
  });

  it('loads in llama.cpp as a llama model with the architecture and special tokens written', () => {
    assert.equal(model.fileInfo.metadata.general.architecture, 'llama');
    assert.equal(model.trainContextSize, MODEL_SPECS.tiny.contextLength);
    assert.equal(model.embeddingVectorSize, MODEL_SPECS.tiny.width);
    assert.equal(model.vocabularyType, 'spm');
    assert.equal(model.tokens.bos, BOS_ID);
    assert.equal(model.tokens.eos, EOS_ID);
    assert.equal(model.tokens.eot, IM_END_ID);
    assert.ok(model.isEogToken(IM_END_ID as never));
  });

  it('tokenizes with word pieces, ChatML markers as single control tokens, and byte fallback', () => {
    const text = '<|im_start|>user\nthe pool routes every request<|im_end|>\n';
    const tokens = model.tokenize(text, true);
    assert.equal(tokens[0], IM_START_ID);
    assert.ok(tokens.includes(IM_END_ID as never));
    const words = model.tokenize(' the pool routes every request', false);
    assert.ok(words.length <= 6, `five words took ${words.length} tokens`);
    assert.equal(model.detokenize(tokens, true), text);
    const nonAscii = model.tokenize('é€', false);
    assert.ok(
      nonAscii.every((t) => t >= FIRST_BYTE_ID && t < FIRST_BYTE_ID + 256),
      'characters outside the pieces fall back to bytes',
    );
    assert.equal(model.detokenize(nonAscii), 'é€');
  });

  it('has a 512-token vocabulary whose pieces are all printable text', () => {
    const v = buildVocabulary();
    assert.equal(v.tokens.length, VOCAB_SIZE);
    assert.equal(v.types.filter((t) => t === TokenType.BYTE).length, 256);
    for (let id = 0; id < VOCAB_SIZE; id++) {
      if (v.types[id] === TokenType.NORMAL) assert.match(v.tokens[id]!, /^[\u2581 -~]+$/);
    }
  });
});
