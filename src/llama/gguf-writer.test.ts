import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { fromHalf, GGUF_ALIGNMENT, GgmlType, GgufValueType, toHalf, writeGguf } from './gguf-writer.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

/** A deliberately separate, minimal reader: just enough of the format to check what was written. */
function readBack(buf: Buffer) {
  let at = 0;
  const u32 = () => ((at += 4), buf.readUInt32LE(at - 4));
  const u64 = () => ((at += 8), Number(buf.readBigUInt64LE(at - 8)));
  const str = () => {
    const n = u64();
    at += n;
    return buf.toString('utf8', at - n, at);
  };
  const scalar = (type: number): unknown => {
    switch (type) {
      case GgufValueType.UINT8:
        return buf.readUInt8(at++);
      case GgufValueType.INT32:
        return ((at += 4), buf.readInt32LE(at - 4));
      case GgufValueType.UINT32:
        return u32();
      case GgufValueType.FLOAT32:
        return ((at += 4), buf.readFloatLE(at - 4));
      case GgufValueType.BOOL:
        return buf.readUInt8(at++) === 1;
      case GgufValueType.STRING:
        return str();
      case GgufValueType.UINT64:
        return u64();
      default:
        throw new Error(`reader does not know type ${type}`);
    }
  };
  const magic = buf.toString('latin1', 0, 4);
  at = 4;
  const version = u32();
  const tensorCount = u64();
  const kvCount = u64();
  const kv = new Map<string, { type: number; value: unknown }>();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    const type = u32();
    if (type === GgufValueType.ARRAY) {
      const of = u32();
      const n = u64();
      kv.set(key, { type, value: Array.from({ length: n }, () => scalar(of)) });
    } else kv.set(key, { type, value: scalar(type) });
  }
  const tensors = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = str();
    const nd = u32();
    const dims = Array.from({ length: nd }, () => u64());
    tensors.push({ name, dims, type: u32(), offset: u64() });
  }
  const dataStart = Math.ceil(at / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  return { magic, version, kv, tensors, infoEnd: at, dataStart };
}

const SAMPLE = {
  metadata: [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['test.count', { type: 'u32', value: 7 }],
    ['test.eps', { type: 'f32', value: 0.5 }],
    ['test.flag', { type: 'bool', value: true }],
    ['test.big', { type: 'u64', value: 2n ** 40n }],
    ['test.words', { type: 'array', of: 'string', value: ['a', 'ünï', '<0x0A>'] }],
    ['test.types', { type: 'array', of: 'i32', value: Int32Array.from([1, -2, 6]) }],
  ],
  tensors: [
    { name: 'a.weight', dims: [3], type: GgmlType.F32, data: Float32Array.from([1, 2, 3]) },
    { name: 'b.weight', dims: [4, 2], type: GgmlType.F16, data: Float32Array.from([0.5, -1, 2, 0, 1e-3, 65504, -0.25, 3.14159]) },
  ],
} as const;

describe('GGUF writer', () => {
  it('writes the v3 header, typed metadata and tensor infos, with general.alignment added', () => {
    const buf = writeGguf(SAMPLE);
    const r = readBack(buf);
    assert.equal(r.magic, 'GGUF');
    assert.equal(r.version, 3);
    assert.equal(r.tensors.length, 2);
    assert.deepEqual(r.kv.get('general.alignment'), { type: GgufValueType.UINT32, value: 32 });
    assert.deepEqual(r.kv.get('test.count'), { type: GgufValueType.UINT32, value: 7 });
    assert.deepEqual(r.kv.get('test.eps'), { type: GgufValueType.FLOAT32, value: 0.5 });
    assert.deepEqual(r.kv.get('test.flag'), { type: GgufValueType.BOOL, value: true });
    assert.deepEqual(r.kv.get('test.big'), { type: GgufValueType.UINT64, value: 2 ** 40 });
    assert.deepEqual(r.kv.get('test.words')?.value, ['a', 'ünï', '<0x0A>']);
    assert.deepEqual(r.kv.get('test.types')?.value, [1, -2, 6]);
    assert.deepEqual(r.tensors[1], { name: 'b.weight', dims: [4, 2], type: GgmlType.F16, offset: 32 });
  });

  it('aligns the data section and every tensor to 32 bytes, with zero padding', () => {
    const buf = writeGguf(SAMPLE);
    const r = readBack(buf);
    assert.equal(r.dataStart % 32, 0);
    for (const t of r.tensors) assert.equal(t.offset % 32, 0);
    assert.ok(buf.subarray(r.infoEnd, r.dataStart).every((b) => b === 0));
    assert.equal(buf.readFloatLE(r.dataStart + 8), 3);
    const b = r.dataStart + 32;
    assert.deepEqual(
      [0, 1, 5, 7].map((i) => fromHalf(buf.readUInt16LE(b + i * 2))),
      [0.5, -1, 65504, 3.140625],
    );
    assert.equal(buf.length % 32, 0);
  });

  it("is read the same way by node-llama-cpp's own GGUF parser", async () => {
    const dir = scratchDir('cihub-gguf-');
    const path = join(dir, 'sample.gguf');
    writeFileSync(path, writeGguf(SAMPLE));
    const info = await readGgufFileInfo(path, { logWarnings: false });
    assert.equal(info.version, 3);
    assert.equal(Number(info.tensorCount), 2);
    const meta = info.metadata as unknown as { test: Record<string, unknown> };
    assert.equal(meta.test['count'], 7);
    assert.deepEqual(meta.test['words'], ['a', 'ünï', '<0x0A>']);
    assert.deepEqual(
      info.tensorInfo?.map((t) => [t.name, t.dimensions.map(Number), Number(t.offset)]),
      [
        ['a.weight', [3], 0],
        ['b.weight', [4, 2], 32],
      ],
    );
  });

  it('refuses a duplicate key and a tensor whose data does not match its dimensions', () => {
    assert.throws(
      () =>
        writeGguf({
          metadata: [
            ['k', { type: 'u32', value: 1 }],
            ['k', { type: 'u32', value: 2 }],
          ],
          tensors: [],
        }),
      /twice/,
    );
    assert.throws(() => writeGguf({ metadata: [], tensors: [{ name: 'x', dims: [2, 2], type: GgmlType.F32, data: new Float32Array(3) }] }), /holds 3 values/);
  });

  it('converts to binary16 with round-to-nearest-even, subnormals and overflow', () => {
    assert.equal(toHalf(1), 0x3c00);
    assert.equal(toHalf(-2), 0xc000);
    assert.equal(toHalf(65504), 0x7bff);
    assert.equal(toHalf(1e6), 0x7c00);
    assert.equal(toHalf(2 ** -24), 0x0001);
    assert.equal(toHalf(1 + 2 ** -11), 0x3c00); // halfway, rounds to even
    assert.equal(toHalf(1 + 3 * 2 ** -11), 0x3c02);
    for (const v of [0.1, -3.3, 1234.5, 7e-5]) assert.ok(Math.abs(fromHalf(toHalf(v)) - v) <= Math.abs(v) * 2 ** -10);
  });
});
