/**
 * A GGUF (version 3) writer: the little-endian container llama.cpp loads. Layout, in order:
 *   magic "GGUF", version u32, tensor count u64, metadata count u64;
 *   metadata: key (string), value type (u32), value;
 *   tensor infos: name (string), dimension count (u32), dimensions (u64 each, innermost first),
 *     ggml type (u32), data offset (u64, from the start of the data section);
 *   zero padding up to the alignment, then each tensor's data, each starting on the alignment.
 * Strings are a u64 byte length followed by UTF-8 bytes, with no terminator. Every value carries
 * its type explicitly here, because JSON numbers cannot say whether they mean u32 or f32.
 */

export const GGUF_MAGIC = 'GGUF';
export const GGUF_VERSION = 3;
/** llama.cpp's default; written out as general.alignment too so readers need not assume it. */
export const GGUF_ALIGNMENT = 32;

/** Metadata value type codes (gguf_type). */
export const GgufValueType = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** The tensor element types this writer can store (ggml_type codes). */
export const GgmlType = { F32: 0, F16: 1 } as const;
export type GgmlTypeCode = (typeof GgmlType)[keyof typeof GgmlType];

type Scalar =
  | { type: 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64'; value: number }
  | { type: 'u64' | 'i64'; value: bigint | number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string };

export type GgufValue =
  | Scalar
  | { type: 'array'; of: 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64'; value: ArrayLike<number> }
  | { type: 'array'; of: 'string'; value: readonly string[] };

export interface GgufTensor {
  readonly name: string;
  /** Dimensions innermost first, as ggml's ne[]: a matrix of `rows` rows of `cols` is [cols, rows]. */
  readonly dims: readonly number[];
  readonly type: GgmlTypeCode;
  /** Row-major values, ne[0] varying fastest; converted to the tensor type on write. */
  readonly data: Float32Array;
}

export interface GgufFile {
  readonly metadata: ReadonlyArray<readonly [string, GgufValue]>;
  readonly tensors: readonly GgufTensor[];
}

const SCALAR_CODES: Record<string, number> = {
  u8: GgufValueType.UINT8,
  i8: GgufValueType.INT8,
  u16: GgufValueType.UINT16,
  i16: GgufValueType.INT16,
  u32: GgufValueType.UINT32,
  i32: GgufValueType.INT32,
  f32: GgufValueType.FLOAT32,
  bool: GgufValueType.BOOL,
  string: GgufValueType.STRING,
  u64: GgufValueType.UINT64,
  i64: GgufValueType.INT64,
  f64: GgufValueType.FLOAT64,
};

const SCALAR_BYTES: Record<string, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, f32: 4, f64: 8, u64: 8, i64: 8, bool: 1 };

/** Grows as it is written; one pass, no second copy of the tensor data. */
class ByteSink {
  #buf: Buffer;
  #len = 0;

  constructor(initial: number) {
    this.#buf = Buffer.alloc(Math.max(64, initial));
  }

  get length(): number {
    return this.#len;
  }

  reserve(n: number): number {
    const need = this.#len + n;
    if (need > this.#buf.length) {
      const next = Buffer.alloc(Math.max(need, this.#buf.length * 2));
      this.#buf.copy(next, 0, 0, this.#len);
      this.#buf = next;
    }
    const at = this.#len;
    this.#len = need;
    return at;
  }

  get raw(): Buffer {
    return this.#buf;
  }

  u32(v: number): void {
    this.#buf.writeUInt32LE(v, this.reserve(4));
  }

  u64(v: bigint | number): void {
    this.#buf.writeBigUInt64LE(BigInt(v), this.reserve(8));
  }

  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    bytes.copy(this.#buf, this.reserve(bytes.length));
  }

  padTo(alignment: number): void {
    const pad = (alignment - (this.#len % alignment)) % alignment;
    this.reserve(pad); // Buffer.alloc zero-fills, so the padding is already zeros
  }

  done(): Buffer {
    return this.#buf.subarray(0, this.#len);
  }
}

function writeScalar(sink: ByteSink, type: string, value: number | bigint | boolean | string): void {
  if (type === 'string') return sink.string(value as string);
  const at = sink.reserve(SCALAR_BYTES[type] ?? 0);
  const b = sink.raw;
  switch (type) {
    case 'u8':
      return void b.writeUInt8(value as number, at);
    case 'i8':
      return void b.writeInt8(value as number, at);
    case 'u16':
      return void b.writeUInt16LE(value as number, at);
    case 'i16':
      return void b.writeInt16LE(value as number, at);
    case 'u32':
      return void b.writeUInt32LE(value as number, at);
    case 'i32':
      return void b.writeInt32LE(value as number, at);
    case 'f32':
      return void b.writeFloatLE(value as number, at);
    case 'f64':
      return void b.writeDoubleLE(value as number, at);
    case 'u64':
      return void b.writeBigUInt64LE(BigInt(value as number | bigint), at);
    case 'i64':
      return void b.writeBigInt64LE(BigInt(value as number | bigint), at);
    case 'bool':
      return void b.writeUInt8(value ? 1 : 0, at);
    default:
      throw new Error(`gguf: unknown value type ${type}`);
  }
}

function writeValue(sink: ByteSink, v: GgufValue): void {
  if (v.type !== 'array') {
    sink.u32(SCALAR_CODES[v.type] ?? -1);
    return writeScalar(sink, v.type, v.value);
  }
  sink.u32(GgufValueType.ARRAY);
  sink.u32(SCALAR_CODES[v.of] ?? -1);
  sink.u64(v.value.length);
  if (v.of === 'string') {
    for (const s of v.value as readonly string[]) sink.string(s);
    return;
  }
  const values = v.value as ArrayLike<number>;
  for (let i = 0; i < values.length; i++) writeScalar(sink, v.of, values[i] ?? 0);
}

/** Bytes a tensor takes in the file. */
export function tensorByteSize(t: Pick<GgufTensor, 'dims' | 'type'>): number {
  const count = t.dims.reduce((a, b) => a * b, 1);
  return count * (t.type === GgmlType.F16 ? 2 : 4);
}

function checkTensor(t: GgufTensor): void {
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims.length === 0 || t.dims.length > 4) throw new Error(`gguf: tensor ${t.name} has ${t.dims.length} dimensions`);
  if (!t.dims.every((d) => Number.isInteger(d) && d > 0)) throw new Error(`gguf: tensor ${t.name} has a bad dimension`);
  if (count !== t.data.length) throw new Error(`gguf: tensor ${t.name} holds ${t.data.length} values for dims ${t.dims.join('x')}`);
}

/** Serialises a whole GGUF file into one buffer. */
export function writeGguf(file: GgufFile): Buffer {
  const keys = new Set<string>();
  for (const [key] of file.metadata) {
    if (keys.has(key)) throw new Error(`gguf: metadata key ${key} appears twice`);
    keys.add(key);
  }
  file.tensors.forEach(checkTensor);
  const dataBytes = file.tensors.reduce((n, t) => n + tensorByteSize(t) + GGUF_ALIGNMENT, 0);
  const sink = new ByteSink(dataBytes + 64 * 1024);

  sink.raw.write(GGUF_MAGIC, sink.reserve(4), 'latin1');
  sink.u32(GGUF_VERSION);
  sink.u64(file.tensors.length);
  const metadata = keys.has('general.alignment') ? file.metadata : [...file.metadata, ['general.alignment', { type: 'u32', value: GGUF_ALIGNMENT }] as const];
  sink.u64(metadata.length);
  for (const [key, value] of metadata) {
    sink.string(key);
    writeValue(sink, value);
  }

  let offset = 0;
  for (const t of file.tensors) {
    sink.string(t.name);
    sink.u32(t.dims.length);
    for (const d of t.dims) sink.u64(d);
    sink.u32(t.type);
    sink.u64(offset);
    offset += tensorByteSize(t);
    offset += (GGUF_ALIGNMENT - (offset % GGUF_ALIGNMENT)) % GGUF_ALIGNMENT;
  }

  sink.padTo(GGUF_ALIGNMENT);
  for (const t of file.tensors) {
    const at = sink.reserve(tensorByteSize(t));
    const b = sink.raw;
    if (t.type === GgmlType.F16) {
      for (let i = 0; i < t.data.length; i++) b.writeUInt16LE(toHalf(t.data[i] ?? 0), at + i * 2);
    } else {
      for (let i = 0; i < t.data.length; i++) b.writeFloatLE(t.data[i] ?? 0, at + i * 4);
    }
    sink.padTo(GGUF_ALIGNMENT);
  }
  return sink.done();
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary16 bits of a number, rounded to nearest even (subnormals kept, overflow to infinity). */
export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0); // inf / nan
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // too small even for a subnormal
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && (half & 1) === 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half += 1; // may carry into the exponent, which is right
  return sign | half;
}

/** The number a binary16 bit pattern stands for. */
export function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
