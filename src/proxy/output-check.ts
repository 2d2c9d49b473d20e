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
 * - malformed-output: a non-streamed 200 that is not JSON at all (a text/plain "OK", an HTML
 *   page, an empty body, bytes cut mid-document): nobody can read it as an answer, so it was
 *   never served (issue 9 #20 asks for exactly this, where the spec leaves it unjudged).
 * JSON not recognisably in the dialect is not judged (the spec's rule): it is relayed as it
 * came, neither struck nor taken as the clean answer that ends a withhold. Token usage is not a
 * signal.
 */
import { StringDecoder } from 'node:string_decoder';
import type { ProxyDialect } from '../engines/types.js';

export type OutputFault = 'truncated-upstream' | 'degenerate-output' | 'malformed-output';

/** How much generated text the placeholder check reads. */
export const DEGENERATE_PREFIX_CHARS = 256;
/** The tail of a stream kept to find its last frames (a final frame, a usage chunk and [DONE] fit easily). */
export const STREAM_TAIL_BYTES = 4 * 1024;
/**
 * How far the tail may grow to keep a long last line (or the line before it) whole. Ollama's
 * /api/generate ends on a frame carrying `context`, every token of the conversation as an int
 * array (protocols.md §2.3): ~56 KB for 8,000 tokens, ~210 KB for 30,000. Past this the line is
 * given up: the stream is left unjudged and its timings unread.
 */
export const STREAM_LAST_LINE_MAX_BYTES = 1024 * 1024;
/** The tail's first buffer: a short answer's whole stream; a longer one's tail moves to a buffer of twice STREAM_TAIL_BYTES. */
const TAIL_FIRST_BYTES = 1024;
/** How much of a stream's start the placeholder check reads: past this, a stream whose text is short is judged on what it had. */
export const STREAM_HEAD_BYTES = 16 * 1024;
/** How many of the last events are parsed looking for a finish_reason. */
const LAST_EVENTS_PARSED = 4;

/**
 * Spaces, then placeholders each followed by spaces. Written so each space can match only one way:
 * as (\s*<unused\d+>\s*)+ the spaces between two placeholders could end one repeat or begin the
 * next, and a failing match tried every split: 22 placeholders and a trailing letter, 243
 * characters a model can be asked to echo, held the event loop for hours (n = 20: 117 s).
 */
const PLACEHOLDERS_ONLY = /^\s*(?:<unused\d+>\s*)+$/;

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

/** A whole body as judged: JSON not in the dialect is not judged, and only a sound answer is a clean one. */
export interface AnswerReading {
  readonly fault: OutputFault | null;
  /** Whether the body was judged at all: not JSON (malformed), or recognisably an answer in the dialect. */
  readonly judged: boolean;
  /** The document parsed (null when the body was not JSON), so the engine's timings are read from the same parse. */
  readonly doc: unknown;
}

/** Judges a whole non-streamed body and hands back the document it parsed. */
export function readAnswer(dialect: ProxyDialect, body: Buffer): AnswerReading {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return { fault: 'malformed-output', judged: true, doc: null };
  }
  const d = record(doc);
  if (d === null || !inDialect(dialect, d)) return { fault: null, judged: false, doc };
  return { fault: judgeDoc(dialect, d), judged: true, doc };
}

/** An Ollama body carries done and model; an OpenAI-compatible one a readable first choice. */
function inDialect(dialect: ProxyDialect, d: Record<string, unknown>): boolean {
  return dialect === 'ollama' ? 'done' in d && 'model' in d : choicesOf(d)[0] !== undefined;
}

function judgeDoc(dialect: ProxyDialect, d: Record<string, unknown>): OutputFault | null {
  if (dialect === 'ollama') {
    if (d.done !== true) return 'truncated-upstream';
  } else {
    const first = choicesOf(d)[0]!;
    if (first.finish_reason === null || first.finish_reason === undefined) return 'truncated-upstream';
  }
  return isDegenerate(generatedText(d)) ? 'degenerate-output' : null;
}

/**
 * Judges a stream as it passes, never holding a byte back. It keeps a copy of the last
 * STREAM_TAIL_BYTES, reaching further back to keep the last two lines whole (the final frame says
 * whether the stream ended, and an error frame may come just before [DONE]) up to
 * STREAM_LAST_LINE_MAX_BYTES, and nothing of the head: the head's frames are parsed as they
 * come, until they have told whether the stream is in the dialect at all and whether its text
 * could still be nothing but placeholders. For almost every stream that is its first frame with
 * text, so the parsing stops there; a stream whose text stays empty (a tool call's arguments are
 * not text) is parsed for at most its first STREAM_HEAD_BYTES.
 *
 * The head was a copy before, grown by doubling up to 16 KiB: on the soak's slow streams each
 * copy outlived a young-generation collection, so every buffer a stream dropped as its copy grew,
 * and the last at its end, waited for a full one (15-31 KiB a stream). Now a stream's tail takes
 * 1 KiB and then 8 KiB; the soak's array buffers peaked at 28-41 MB instead of 54-72, and its RSS
 * at +137 to +177 MB over idle instead of +162 to +196 (bench/README.md, 2026-12-03 20:25).
 */
export class StreamJudge {
  readonly #dialect: ProxyDialect;
  /** Bytes of the head read so far; the head is every chunk that began before STREAM_HEAD_BYTES. */
  #headBytes = 0;
  /** The head's decoder while it is read (it carries a character split between chunks); null once the head has told all it can. */
  #headDecoder: StringDecoder | null = null;
  /** A head line begun and not yet ended. */
  #headPartial = '';
  /** Whether a complete line of the head was a frame in the dialect. */
  #sawFrame = false;
  /** The head's generated text so far, while the placeholder check is undecided. */
  #generated = '';
  /** The placeholder check's verdict once decided (true: degenerate); null while undecided. */
  #degenerate: boolean | null = null;
  /** The last chunks, copied: the fewest that hold STREAM_TAIL_BYTES (all of them while there are fewer). */
  readonly #tail = new ByteRun(TAIL_FIRST_BYTES, 2 * STREAM_TAIL_BYTES, STREAM_LAST_LINE_MAX_BYTES);
  /** The length of each chunk in the tail, oldest first. */
  readonly #tailChunks: number[] = [];
  #tailBytes = 0;
  /** The tail decoded, once read; null again after every push. */
  #tailDecoded: string | null = null;
  /** Bytes pushed so far: the stream offset just past the tail. */
  #streamBytes = 0;
  /** The stream offset of the chunk in which the last line with anything but whitespace on it begins. */
  #lastLineChunk = 0;
  /**
   * The stream offset of the chunk in which the line before the last begins, or an earlier chunk's
   * (where the last line began before the newest did) when finding it exactly would cost a search
   * of the chunk: it is kept only while the last line ends in ']' or is still open.
   */
  #lineBeforeLastChunk = 0;
  /**
   * Whether the last non-whitespace byte so far is ']', as an OpenAI stream's `data: [DONE]` ends
   * (no frame of either dialect does). vLLM ends a failed stream with an error frame and then
   * [DONE]: with only the last line kept whole, an error frame longer than the tail lost its start
   * and the stream read as sound. So while the last line ends in ']', the line before is kept too.
   */
  #endsInBracket = false;
  /**
   * Whether a newline came after the last non-whitespace byte (the next such byte begins a line).
   * While it has not, the last line may be a [DONE] split between two reads (`data: [DO`, then
   * `NE]`), so the line before is kept too: keyed on the ']' alone, an error frame longer than the
   * tail was dropped at the first part and the stream read as sound. Being open is already known
   * here for every chunk, where reading the open line's bytes for a [DONE] would cost a search.
   */
  #lineEnded = true;
  /** Whether the last line outgrew STREAM_LAST_LINE_MAX_BYTES and its start was dropped. */
  #lastLineLost = false;

  constructor(dialect: ProxyDialect) {
    this.#dialect = dialect;
  }

  /**
   * Copies the chunk into the tail (no decoding) and, while the head is undecided, reads its
   * lines: this runs for every chunk of every stream. Copied rather than held: holding the chunks
   * themselves kept every event's buffer alive for as long as its stream ran, which pushed them
   * into the old generation; on token streams at 32 connections garbage collection was 16% of
   * the Hub's busy time against 3% for the bare relay (bench/README.md, 2026-12-02).
   */
  push(chunk: Buffer): void {
    this.#tailDecoded = null;
    if (this.#headBytes < STREAM_HEAD_BYTES) this.#readHead(chunk);
    this.#findLastLine(chunk);
    this.#tail.append(chunk);
    this.#tailChunks.push(chunk.length);
    this.#tailBytes += chunk.length;
    while (this.#tailChunks.length > 1 && this.#tailBytes - this.#tailChunks[0]! >= STREAM_TAIL_BYTES) {
      // A chunk holding the start of the last two lines stays while the tail is under the cap: a
      // final frame bigger than the tail, read in pieces, lost its start here and read as a cut.
      const oldestEnd = this.#streamBytes - this.#tailBytes + this.#tailChunks[0]!;
      const keepFrom = this.#endsInBracket || !this.#lineEnded ? this.#lineBeforeLastChunk : this.#lastLineChunk;
      if (oldestEnd > keepFrom && !this.#lastLineLost) {
        if (this.#tailBytes <= STREAM_LAST_LINE_MAX_BYTES) break;
        // Past the cap the line before the last is let go; losing the last one's start leaves the stream unjudged.
        if (oldestEnd > this.#lastLineChunk) this.#lastLineLost = true;
      }
      const dropped = this.#tailChunks.shift()!;
      this.#tailBytes -= dropped;
      this.#tail.dropFront(dropped);
    }
  }

  /**
   * Whether the stream can be judged at all: a frame in the dialect was seen, and its last line
   * was kept whole. A stream that cannot be is no clean answer either.
   */
  get judged(): boolean {
    return this.#sawFrame && !this.#lastLineLost;
  }

  /** The verdict once the stream ended cleanly on the wire; a dropped connection is judged by the caller. */
  finish(): OutputFault | null {
    // Not recognisably in the dialect: not judged. One frame is enough to know.
    if (!this.#sawFrame) return null;
    // The final frame was too long to keep: whether it came is unknown, but the head still tells placeholders.
    if (this.#lastLineLost) return this.#placeholdersOnly() ? 'degenerate-output' : null;
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
    return this.#placeholdersOnly() ? 'degenerate-output' : null;
  }

  /** The placeholder check's verdict; undecided at the end, the text was shorter than the check reads, or the head ran out first. */
  #placeholdersOnly(): boolean {
    return this.#degenerate ?? isDegenerate(this.#generated);
  }

  /**
   * Follows which chunk the last line begins in. Only whether that is an older chunk matters (the
   * newest is never dropped), and a line begins in this one when the stream stood at a line's end
   * or a newline comes before the chunk's last non-whitespace byte. A chunk of whole frames is told
   * by its trailing newline alone. Searching every chunk for its last newline about doubled the
   * cost of a push; this adds 5-20 ns to its 45-110 (2026-12-05, 200-byte frames, the judge alone).
   */
  #findLastLine(chunk: Buffer): void {
    const offset = this.#streamBytes;
    this.#streamBytes += chunk.length;
    let end = chunk.length - 1;
    let newlineAfter = false;
    while (end >= 0 && isBlank(chunk[end]!)) {
      if (chunk[end] === NEWLINE) newlineAfter = true;
      end--;
    }
    if (end < 0) {
      this.#lineEnded ||= newlineAfter;
      return;
    }
    this.#endsInBracket = chunk[end] === CLOSE_BRACKET;
    if (this.#lineEnded || newlineBefore(chunk, end)) {
      this.#lineBeforeLastChunk = this.#endsInBracket && lineBeforeBeginsHere(chunk, end, this.#lineEnded) ? offset : this.#lastLineChunk;
      this.#lastLineChunk = offset;
      this.#lastLineLost = false;
    }
    this.#lineEnded = newlineAfter;
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

  /** Reads the complete lines a head chunk ends, until a frame was seen and the placeholder check is decided. */
  #readHead(chunk: Buffer): void {
    this.#headBytes += chunk.length;
    if (this.#sawFrame && this.#degenerate !== null) return;
    this.#headDecoder ??= new StringDecoder('utf8');
    const lines = (this.#headPartial + this.#headDecoder.write(chunk)).split('\n');
    this.#headPartial = lines.pop()!;
    for (const line of lines) {
      const frame = this.#frameOf(line);
      if (frame === null) continue;
      this.#sawFrame = true;
      if (this.#degenerate === null) this.#readText(generatedText(frame));
      if (this.#degenerate !== null) break;
    }
    // Told all it can, or read all it may: what is left of the head is not needed.
    if ((this.#sawFrame && this.#degenerate !== null) || this.#headBytes >= STREAM_HEAD_BYTES) {
      this.#headDecoder = null;
      this.#headPartial = '';
    }
  }

  /** Adds a head frame's text to the placeholder check, deciding it once the text settles it. */
  #readText(text: string): void {
    this.#generated += text;
    if (this.#generated.length >= DEGENERATE_PREFIX_CHARS) this.#degenerate = isDegenerate(this.#generated);
    else if (!couldBePlaceholders(this.#generated)) this.#degenerate = false;
    if (this.#degenerate !== null) this.#generated = '';
  }

  /** The tail as text, decoded once when the stream has ended (finish and lastFrames both read it). */
  #tailText(): string {
    this.#tailDecoded ??= this.#tail.text();
    return this.#tailDecoded;
  }

  /** One line's frame in the dialect, parsed; null for a blank line, a comment, [DONE] or anything not JSON. */
  #frameOf(raw: string): unknown {
    const line = raw.trim();
    if (line === '' || line.startsWith(':')) return null;
    const payload = this.#dialect === 'openai' ? (line.startsWith('data:') ? line.slice(5).trim() : null) : line;
    return payload === null || payload === '[DONE]' ? null : parseJson(payload);
  }
}

/**
 * Whether more text could still make `generated` (shorter than the check reads) nothing but
 * placeholders: it is placeholders and whitespace so far, but for a last placeholder begun and
 * not yet closed, which the check itself leaves out when the cut at 256 characters splits one.
 * Once this is false no later text can change the verdict: the text is an answer.
 */
function couldBePlaceholders(generated: string): boolean {
  return PLACEHOLDERS_SO_FAR.test(generated.replace(/<[a-z]*\d*$/, ''));
}

const PLACEHOLDERS_SO_FAR = /^(?:\s*<unused\d+>)*\s*$/;

const NEWLINE = 0x0a;

/** Whether `chunk` has a newline before byte `end`. */
function newlineBefore(chunk: Buffer, end: number): boolean {
  const at = chunk.indexOf(NEWLINE);
  return at !== -1 && at < end;
}

const CLOSE_BRACKET = 0x5d;

/**
 * Whether the line before the last one (which ends at byte `end`) also begins in `chunk`: it has
 * something but whitespace, and a newline before that, or the stream stood at a line's end when
 * the chunk came. Otherwise it is the line that was last before this chunk.
 */
function lineBeforeBeginsHere(chunk: Buffer, end: number, streamAtLineEnd: boolean): boolean {
  let at = chunk.lastIndexOf(NEWLINE, end);
  while (at >= 0 && isBlank(chunk[at]!)) at--;
  if (at < 0) return false;
  return streamAtLineEnd || chunk.lastIndexOf(NEWLINE, at) !== -1;
}

/** The bytes a line may end in (trimmed away by the readers of the tail). */
function isBlank(byte: number): boolean {
  return byte === NEWLINE || byte === 0x0d || byte === 0x20 || byte === 0x09;
}

/**
 * Bytes copied into one buffer of its own that drops bytes from its front. The first buffer holds
 * `firstBytes`, enough for a short answer; one that outgrows it gets `usualBytes` at once, reused
 * from then on by moving what it holds back to its start, and grown again only for a chunk that
 * needs more room than that. Two sizes, not doubling: each buffer a long stream drops is garbage
 * only a full collection frees. Past the usual size it doubles, up to `mostBytes` (a long last
 * line held whole), and a buffer so grown is kept for the rest of its stream.
 */
class ByteRun {
  readonly #firstBytes: number;
  readonly #usualBytes: number;
  readonly #mostBytes: number;
  #bytes: Buffer | null = null;
  #start = 0;
  #end = 0;

  constructor(firstBytes: number, usualBytes: number, mostBytes: number) {
    this.#firstBytes = firstBytes;
    this.#usualBytes = usualBytes;
    this.#mostBytes = mostBytes;
  }

  get length(): number {
    return this.#end - this.#start;
  }

  /** Appends a copy of `chunk`. */
  append(chunk: Uint8Array): void {
    const length = this.length;
    const needed = length + chunk.length;
    if (this.#bytes === null || this.#end + chunk.length > this.#bytes.length) {
      const capacity = this.#bytes?.length ?? 0;
      // Unpooled: a pooled slice would keep its whole shared slab alive with the stream.
      const next = needed <= capacity ? this.#bytes! : Buffer.allocUnsafeSlow(Math.max(needed, this.#grownBytes(capacity)));
      if (this.#bytes !== null) this.#bytes.copy(next, 0, this.#start, this.#end);
      this.#bytes = next;
      this.#start = 0;
      this.#end = length;
    }
    this.#bytes.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  /**
   * The least a buffer that outgrows `capacity` is given. Past the usual size it grows mostly for
   * a long line kept whole, a chunk at a time: doubling copies that line a few times, not once a chunk.
   */
  #grownBytes(capacity: number): number {
    if (capacity === 0) return this.#firstBytes;
    return capacity <= this.#usualBytes ? this.#usualBytes : Math.min(2 * capacity, this.#mostBytes);
  }

  dropFront(bytes: number): void {
    this.#start += bytes;
  }

  text(): string {
    return this.#bytes === null ? '' : this.#bytes.toString('utf8', this.#start, this.#end);
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
