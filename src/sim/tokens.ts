/**
 * The simulator's stand-in tokenizer and text generator. Deterministic on purpose: the same
 * prompt always yields the same counts, the same cache hits and the same answer, so tests can
 * compare bodies, and counts line up with the Hub's own bytes/4 prompt estimate.
 */

/** One token per four characters of prompt text, the usual rule of thumb for English. */
export const CHARS_PER_TOKEN = 4;

/** The placeholder the `unused` fault emits, the reserved-vocabulary token seen from a broken model. */
export const UNUSED_TOKEN = '<unused49>';

const FILLER_WORDS = [
  'the',
  'pool',
  'routes',
  'each',
  'request',
  'to',
  'a',
  'node',
  'that',
  'holds',
  'its',
  'model',
  'and',
  'streams',
  'tokens',
  'back',
  'while',
  'slots',
  'queue',
  'work',
  'in',
  'order',
  'so',
  'prefill',
  'stays',
  'warm',
  'on',
  'cached',
  'prefixes',
  'across',
  'every',
  'turn',
] as const;

export function countTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** A chat-completion message as both dialects carry it; content may be a string or OpenAI parts. */
export interface ChatMessageLike {
  role?: unknown;
  content?: unknown;
}

/**
 * Flattens a conversation into the text the model reads, like a chat template: every message in
 * order, then the assistant header the answer continues from. Because an answer is later sent back
 * as an assistant message, a follow-up turn shares the whole previous turn as its prefix.
 */
export function renderChatPrompt(messages: readonly ChatMessageLike[]): string {
  let text = '';
  for (const m of messages) {
    const role = typeof m.role === 'string' ? m.role : 'user';
    text += `<|${role}|>\n${contentText(m.content)}\n`;
  }
  return `${text}${ASSISTANT_HEADER}`;
}

const ASSISTANT_HEADER = '<|assistant|>\n';

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (isRecord(part) && typeof part['text'] === 'string') text += part['text'];
  }
  return text;
}

/** FNV-1a; small, fast and stable across runs, which is all the seed needs. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The i-th generated token for a prompt: filler words, a leading space after the first. */
export function fillerToken(seed: number, i: number): string {
  const word = FILLER_WORDS[(seed + i * 7) % FILLER_WORDS.length] ?? 'the';
  return i === 0 ? word : ` ${word}`;
}

export function generateTokens(seed: number, count: number, unused: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(unused ? UNUSED_TOKEN : fillerToken(seed, i));
  return out;
}

/** Stand-in token ids for Ollama's deprecated `context` array. */
export function tokenIds(text: string, extra: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < text.length; i += CHARS_PER_TOKEN) ids.push(hashText(text.slice(i, i + CHARS_PER_TOKEN)) % 151_000);
  for (let i = 0; i < extra; i++) ids.push(1000 + i);
  return ids;
}

export const EMBEDDING_DIMS = 16;

/** A unit-length vector derived from the text, so equal inputs embed equally. */
export function embedText(text: string): number[] {
  let state = hashText(text) || 1;
  const raw: number[] = [];
  for (let i = 0; i < EMBEDDING_DIMS; i++) {
    // xorshift32 spreads the seed into values in [-1, 1).
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    raw.push(state / 0x80000000 - 1);
  }
  const norm = Math.hypot(...raw) || 1;
  return raw.map((v) => Math.round((v / norm) * 1e6) / 1e6);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
