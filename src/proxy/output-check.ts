/**
 * Answers that are not answers (spec, "A 200 that is not an answer"). On 2026-09-29 one
 * node's Ollama answered gemma4 turns with nothing but <unused49> tokens, its streams ended
 * without the closing done frame, and 167 of 237 rows were logged as served. This judges a
 * completion in its dialect:
 * - truncated-upstream: the dialect's final frame is missing (Ollama's done: true; an OpenAI
 *   stream's [DONE] or a set finish_reason; a non-streamed body's finish_reason), or an OpenAI
 *   stream carried an error frame (vLLM sends [DONE] after one anyway);
 * - degenerate-output: the first 256 characters of generated text, answer and reasoning
 *   together, are nothing but <unusedN> placeholders.
 * A body not recognisably in the dialect is not judged. Token usage is not a signal.
 */
import type { ProxyDialect } from '../engines/types.js';

export type OutputFault = 'truncated-upstream' | 'degenerate-output';

/** How much generated text the placeholder check reads. */
export const DEGENERATE_PREFIX_CHARS = 256;
/** The tail of a stream kept to find its last frames. */
export const STREAM_TAIL_BYTES = 8 * 1024;

const PLACEHOLDERS_ONLY = /^(\s*<unused\d+>\s*)+$/;

export function isDegenerate(generated: string): boolean {
  // The cut at 256 characters can split a placeholder: a trailing fragment of one is not text.
  const head = generated.slice(0, DEGENERATE_PREFIX_CHARS).replace(/<[a-z]*\d*$/, '');
  return head.trim() !== '' && PLACEHOLDERS_ONLY.test(head);
}

/** Generated text (answer and reasoning) of one parsed frame or body, in either dialect. */
export function generatedText(doc: unknown): string {
  const d = doc as Record<string, unknown> | null;
  if (d === null || typeof d !== 'object') return '';
  let out = '';
  const add = (v: unknown) => {
    if (typeof v === 'string') out += v;
  };
  const message = d.message as Record<string, unknown> | undefined;
  add(message?.thinking);
  add(message?.content);
  add(d.thinking);
  add(d.response);
  const choices = Array.isArray(d.choices) ? (d.choices as Record<string, unknown>[]) : [];
  for (const choice of choices) {
    const part = (choice.delta ?? choice.message) as Record<string, unknown> | undefined;
    add(part?.reasoning);
    add(part?.reasoning_content);
    add(part?.content);
    add(choice.text);
  }
  return out;
}

/** Judges a whole non-streamed body; null when it is a sound answer or not in the dialect. */
export function judgeBody(dialect: ProxyDialect, body: Buffer): OutputFault | null {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const d = doc as Record<string, unknown>;
  if (dialect === 'ollama') {
    if (!('done' in d) || !('model' in d)) return null;
    if (d.done !== true) return 'truncated-upstream';
  } else {
    const first = Array.isArray(d.choices) ? (d.choices[0] as Record<string, unknown> | undefined) : undefined;
    if (first === undefined) return null;
    if (first.finish_reason === null || first.finish_reason === undefined) return 'truncated-upstream';
  }
  return isDegenerate(generatedText(d)) ? 'degenerate-output' : null;
}

/**
 * Judges a stream as it passes: it keeps only the generated text of its first frames (up to
 * DEGENERATE_PREFIX_CHARS) and its last STREAM_TAIL_BYTES, and never holds a byte back.
 */
export class StreamJudge {
  readonly #dialect: ProxyDialect;
  #headBuffer = '';
  #generated = '';
  #headDone = false;
  #tail = '';
  #sawFrame = false;
  #sawErrorFrame = false;

  constructor(dialect: ProxyDialect) {
    this.#dialect = dialect;
  }

  push(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    this.#tail = (this.#tail + text).slice(-STREAM_TAIL_BYTES);
    if (!this.#headDone) {
      this.#headBuffer += text;
      const lines = this.#headBuffer.split('\n');
      this.#headBuffer = lines.pop() ?? '';
      for (const line of lines) this.#readHeadLine(line);
      if (this.#generated.length >= DEGENERATE_PREFIX_CHARS) this.#headDone = true;
    }
    if (!this.#sawErrorFrame && this.#dialect === 'openai' && text.includes('"error"')) {
      this.#sawErrorFrame = text.split('\n').some((l) => l.startsWith('data:') && isErrorDoc(parseJson(l.slice(5).trim())));
    }
  }

  /** The verdict once the stream ended cleanly on the wire; a dropped connection is judged by the caller. */
  finish(): OutputFault | null {
    if (!this.#sawFrame) return null;
    if (this.#dialect === 'openai' && this.#sawErrorFrame) return 'truncated-upstream';
    const lines = this.#tail.split('\n').map((l) => l.trim()).filter(Boolean);
    if (this.#dialect === 'ollama') {
      const last = parseJson(lines[lines.length - 1] ?? '');
      if (isErrorDoc(last) || (last as { done?: unknown } | null)?.done !== true) return 'truncated-upstream';
    } else {
      const events = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
      const finished = events.includes('[DONE]') || events.some((e) => hasFinishReason(parseJson(e)));
      if (!finished) return 'truncated-upstream';
    }
    return isDegenerate(this.#generated) ? 'degenerate-output' : null;
  }

  #readHeadLine(raw: string): void {
    const line = raw.trim();
    if (line === '' || line.startsWith(':')) return;
    const payload = this.#dialect === 'openai' ? (line.startsWith('data:') ? line.slice(5).trim() : null) : line;
    if (payload === null || payload === '[DONE]') return;
    const doc = parseJson(payload);
    if (doc === null) return;
    this.#sawFrame = true;
    this.#generated += generatedText(doc);
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
  const choices = (doc as { choices?: unknown } | null)?.choices;
  return Array.isArray(choices) && choices.some((c) => typeof (c as { finish_reason?: unknown }).finish_reason === 'string');
}
