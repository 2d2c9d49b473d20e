/**
 * Answers that are not answers (spec, "A 200 that is not an answer"). On 2026-09-29 one
 * node's Ollama answered gemma4 turns with nothing but <unused49> tokens, its streams ended
 * without the closing done frame, and 167 of 237 rows were logged as served. This judges a
 * completion in its dialect:
 * - truncated-upstream: the dialect's final frame is missing (Ollama's done: true; an OpenAI
 *   stream's [DONE] or a set finish_reason; a non-streamed body's finish_reason), or an OpenAI
 *   stream carried an error frame (vLLM sends [DONE] after one anyway);
 * - degenerate-output: the first 256 characters of generated text, answer and reasoning
 *   together, are nothing but <unusedN> placeholders;
 * - malformed-output: a non-streamed 200 that is not JSON at all (an HTML page, an empty body,
 *   bytes cut mid-document): nobody can read it, so it was never served (issue 9).
 * A JSON body not recognisably in the dialect is not judged. Token usage is not a signal.
 */
import type { ProxyDialect } from '../engines/types.js';

export type OutputFault = 'truncated-upstream' | 'degenerate-output' | 'malformed-output';

/** How much generated text the placeholder check reads. */
export const DEGENERATE_PREFIX_CHARS = 256;
/** The tail of a stream kept to find its last frames (a final frame, a usage chunk and [DONE] fit easily). */
export const STREAM_TAIL_BYTES = 4 * 1024;
/** The head kept for the placeholder check: past this, a stream whose text is short is judged on what it had. */
export const STREAM_HEAD_BYTES = 16 * 1024;
/** How many of the last events are parsed looking for a finish_reason. */
const LAST_EVENTS_PARSED = 4;

const PLACEHOLDERS_ONLY = /^(\s*<unused\d+>\s*)+$/;

export function isDegenerate(generated: string): boolean {
  // The cut at 256 characters can split a placeholder: a trailing fragment of one is not text.
  const head = generated.slice(0, DEGENERATE_PREFIX_CHARS).replace(/<[a-z]*\d*$/, '');
  return head.trim() !== '' && PLACEHOLDERS_ONLY.test(head);
}

/**
 * An engine's JSON value as an object, or null when it is anything else. Every step into a
 * frame goes through this: the body is the engine's untrusted input, and one `null` where a
 * choice belongs once threw here, on a stream's finish event, and ended the Hub (issue 9, the
 * class of defect 2).
 */
function record(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** The readable entries of an OpenAI `choices` array (empty when it is missing or not an array). */
function choicesOf(d: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(d.choices) ? d.choices.map(record).filter((c): c is Record<string, unknown> => c !== null) : [];
}

/** Generated text (answer and reasoning) of one parsed frame or body, in either dialect. */
export function generatedText(doc: unknown): string {
  const d = record(doc);
  if (d === null) return '';
  let out = '';
  const add = (v: unknown) => {
    if (typeof v === 'string') out += v;
  };
  const message = record(d.message);
  add(message?.thinking);
  add(message?.content);
  add(d.thinking);
  add(d.response);
  for (const choice of choicesOf(d)) {
    const part = record(choice.delta ?? choice.message);
    add(part?.reasoning);
    add(part?.reasoning_content);
    add(part?.content);
    add(choice.text);
  }
  return out;
}

/** Judges a whole non-streamed body; null when it is a sound answer or JSON not in the dialect. */
export function judgeBody(dialect: ProxyDialect, body: Buffer): OutputFault | null {
  return readAnswer(dialect, body).fault;
}

/**
 * Judges a whole non-streamed body and hands back the document it parsed (null when it was not
 * JSON), so the engine's timings are read from the same parse rather than a second one of the
 * whole answer.
 */
export function readAnswer(dialect: ProxyDialect, body: Buffer): { readonly fault: OutputFault | null; readonly doc: unknown } {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return { fault: 'malformed-output', doc: null };
  }
  return { fault: judgeDoc(dialect, doc), doc };
}

function judgeDoc(dialect: ProxyDialect, doc: unknown): OutputFault | null {
  const d = record(doc);
  if (d === null) return null;
  if (dialect === 'ollama') {
    if (!('done' in d) || !('model' in d)) return null;
    if (d.done !== true) return 'truncated-upstream';
  } else {
    const first = choicesOf(d)[0];
    if (first === undefined) return null;
    if (first.finish_reason === null || first.finish_reason === undefined) return 'truncated-upstream';
  }
  return isDegenerate(generatedText(d)) ? 'degenerate-output' : null;
}

/**
 * Judges a stream as it passes: it keeps only the first STREAM_HEAD_BYTES and the last
 * STREAM_TAIL_BYTES of text, and never holds a byte back. Frames are parsed only at the end,
 * and the head's frames only when it contains a placeholder at all: parsing every frame of every
 * stream cost a fifth of the Hub's CPU on streams in a profile, to confirm what a substring
 * search already rules out for almost every stream.
 */
export class StreamJudge {
  readonly #dialect: ProxyDialect;
  /** The first chunks, whole, until they reach STREAM_HEAD_BYTES: the whole stream while it is no longer. */
  readonly #head = new ByteRun();
  /**
   * The tail's own copy, from the chunk that outgrew the head on; null until then, while the tail
   * is the head's last #tailBytes. Most answers fit in the head, and a second copy of every chunk
   * into a second buffer grown by doubling was half of what a short stream allocated.
   */
  #tail: ByteRun | null = null;
  /** The length of each chunk in the tail, oldest first: the fewest last chunks that hold STREAM_TAIL_BYTES (all of them while there are fewer). */
  readonly #tailChunks: number[] = [];
  #tailBytes = 0;
  /** The tail decoded, once read; null again after every push. */
  #tailDecoded: string | null = null;

  constructor(dialect: ProxyDialect) {
    this.#dialect = dialect;
  }

  /**
   * Copies what it needs of each chunk (no decoding): this runs for every chunk of every stream.
   * Copied rather than held: holding the chunks themselves kept every event's buffer alive for
   * as long as its stream ran, which pushed them into the old generation; on token streams at 32
   * connections garbage collection was 16% of the Hub's busy time against 3% for the bare relay
   * (bench/README.md, 2026-12-02).
   */
  push(chunk: Buffer): void {
    this.#tailDecoded = null;
    if (this.#tail !== null) this.#tail.append(chunk, 2 * STREAM_TAIL_BYTES);
    else if (this.#head.length < STREAM_HEAD_BYTES) this.#head.append(chunk, STREAM_HEAD_BYTES);
    else {
      // The stream outgrew the head: the tail so far is the head's last chunks.
      this.#tail = new ByteRun();
      this.#tail.append(this.#head.last(this.#tailBytes), 2 * STREAM_TAIL_BYTES, 2 * STREAM_TAIL_BYTES);
      this.#tail.append(chunk, 2 * STREAM_TAIL_BYTES);
    }
    this.#tailChunks.push(chunk.length);
    this.#tailBytes += chunk.length;
    while (this.#tailChunks.length > 1 && this.#tailBytes - this.#tailChunks[0]! >= STREAM_TAIL_BYTES) {
      const dropped = this.#tailChunks.shift()!;
      this.#tailBytes -= dropped;
      this.#tail?.dropFront(dropped);
    }
  }

  /** The verdict once the stream ended cleanly on the wire; a dropped connection is judged by the caller. */
  finish(): OutputFault | null {
    // Not recognisably in the dialect: not judged. One frame is enough to know.
    if (!this.#headHasFrame()) return null;
    const lines = this.#tailText()
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    // An engine's error frame ends its stream (vLLM still sends [DONE] after it; llama.cpp closes),
    // so it is in the tail: searching every chunk for one cost 8% of the Hub's CPU on streams.
    if (this.#dialect === 'openai' && lines.some((l) => l.startsWith('data:') && l.includes('"error"') && isErrorDoc(parseJson(l.slice(5).trim()))))
      return 'truncated-upstream';
    if (this.#dialect === 'ollama') {
      const last = parseJson(lines[lines.length - 1] ?? '');
      if (isErrorDoc(last) || record(last)?.done !== true) return 'truncated-upstream';
    } else {
      const events = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
      const finished = events.includes('[DONE]') || events.slice(-LAST_EVENTS_PARSED).some((e) => hasFinishReason(parseJson(e)));
      if (!finished) return 'truncated-upstream';
    }
    if (!this.#head.includes('<unused')) return null;
    let generated = '';
    for (const frame of this.#frames(this.#head.text(), Infinity)) {
      generated += generatedText(frame);
      if (generated.length >= DEGENERATE_PREFIX_CHARS) break;
    }
    return isDegenerate(generated) ? 'degenerate-output' : null;
  }

  /**
   * The last few frames of the stream, parsed (where the engine's timings are), oldest first;
   * lines that are not frames are skipped. Read from the end: parsing every frame of the 4 KiB
   * tail to keep the last four was 7% of the Hub's busy time on streams (bench/proxy-overhead
   * --profile, 2026-12-02), for ~20 frames a stream of short events leaves there.
   */
  lastFrames(): unknown[] {
    const lines = this.#tailText().split('\n');
    const out: unknown[] = [];
    for (let i = lines.length - 1; i >= 0 && out.length < LAST_EVENTS_PARSED; i--) {
      const doc = this.#frameOf(lines[i]!);
      if (doc !== null) out.push(doc);
    }
    return out.reverse();
  }

  /**
   * Whether a complete line of the head is a frame in the dialect, decoding one line at a time:
   * the first line almost always is one, and decoding and splitting the whole 16 KiB head to
   * find it was most of what judging a finished stream cost.
   */
  #headHasFrame(): boolean {
    for (const line of this.#head.lines()) if (this.#frameOf(line) !== null) return true;
    return false;
  }

  /** The tail as text, decoded once when the stream has ended (finish and lastFrames both read it). */
  #tailText(): string {
    this.#tailDecoded ??= this.#tail === null ? this.#head.textOfLast(this.#tailBytes) : this.#tail.text();
    return this.#tailDecoded;
  }

  /** One line's frame in the dialect, parsed; null for a blank line, a comment, [DONE] or anything not JSON. */
  #frameOf(raw: string): unknown {
    const line = raw.trim();
    if (line === '' || line.startsWith(':')) return null;
    const payload = this.#dialect === 'openai' ? (line.startsWith('data:') ? line.slice(5).trim() : null) : line;
    return payload === null || payload === '[DONE]' ? null : parseJson(payload);
  }

  /** Up to `limit` frames from the complete lines of `text`, in the dialect; not-JSON lines are skipped. */
  #frames(text: string, limit: number): unknown[] {
    const out: unknown[] = [];
    const lines = text.split('\n');
    lines.pop(); // the last piece may be a partial line
    for (const raw of lines) {
      const doc = this.#frameOf(raw);
      if (doc !== null && out.push(doc) >= limit) break;
    }
    return out;
  }
}

const NEWLINE = 0x0a;

/**
 * Bytes copied into one buffer of its own, which grows by doubling (up to a stated size, past
 * which it grows only as far as it must) and can drop bytes from its front.
 */
class ByteRun {
  #bytes: Buffer | null = null;
  #start = 0;
  #end = 0;

  get length(): number {
    return this.#end - this.#start;
  }

  /** Appends a copy of `chunk`; the first buffer holds at least `firstBytes`. */
  append(chunk: Uint8Array, usualMaxBytes: number, firstBytes = 1024): void {
    const length = this.length;
    const needed = length + chunk.length;
    if (this.#bytes === null || this.#end + chunk.length > this.#bytes.length) {
      const capacity = this.#bytes?.length ?? 0;
      // Unpooled: a pooled slice would keep its whole shared slab alive with the stream.
      const next = needed <= capacity ? this.#bytes! : Buffer.allocUnsafeSlow(Math.max(needed, Math.min(2 * capacity, usualMaxBytes), firstBytes));
      if (this.#bytes !== null) this.#bytes.copy(next, 0, this.#start, this.#end);
      this.#bytes = next;
      this.#start = 0;
      this.#end = length;
    }
    this.#bytes.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  /** A view of the last `bytes` bytes (not a copy: it changes with the run). */
  last(bytes: number): Uint8Array {
    return this.#bytes === null ? new Uint8Array(0) : this.#bytes.subarray(this.#end - bytes, this.#end);
  }

  dropFront(bytes: number): void {
    this.#start += bytes;
  }

  text(): string {
    return this.textOfLast(this.length);
  }

  /** The last `bytes` bytes as text. */
  textOfLast(bytes: number): string {
    return this.#bytes === null ? '' : this.#bytes.toString('utf8', this.#end - bytes, this.#end);
  }

  includes(ascii: string): boolean {
    return this.#bytes !== null && this.#bytes.subarray(this.#start, this.#end).includes(ascii);
  }

  /** The complete lines (each ended by a newline), decoded one by one; what follows the last newline is left out. Splitting at the byte gives the same text as decoding first, since a newline byte is never part of a UTF-8 sequence. */
  *lines(): Generator<string> {
    if (this.#bytes === null) return;
    // A view that ends where the bytes do: the buffer's spare room past them was never written.
    const bytes = this.#bytes.subarray(0, this.#end);
    let from = this.#start;
    for (let nl = bytes.indexOf(NEWLINE, from); nl >= 0; nl = bytes.indexOf(NEWLINE, from)) {
      yield bytes.toString('utf8', from, nl);
      from = nl + 1;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isErrorDoc(doc: unknown): boolean {
  return typeof doc === 'object' && doc !== null && 'error' in doc;
}

function hasFinishReason(doc: unknown): boolean {
  const d = record(doc);
  return d !== null && choicesOf(d).some((c) => typeof c.finish_reason === 'string');
}
