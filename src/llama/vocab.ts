/**
 * The generated models' vocabulary: 512 SentencePiece-style pieces for llama.cpp's "llama"
 * tokenizer. Spaces are written as U+2581 inside pieces; anything the pieces cannot spell falls
 * back to the 256 byte tokens <0x00>..<0xFF>. The ChatML markers are control tokens, so a
 * prompt rendered with them tokenizes to one id per marker.
 *
 * The SentencePiece tokenizer in llama.cpp starts from single characters and merges adjacent
 * pairs whose concatenation is a piece, best score first. A word is only reachable if some
 * chain of such merges leads to it, so every word is added together with all of its prefixes
 * ("▁m", "▁mo", "▁mod", ...), each of which is one merge away from the one before.
 */

export const VOCAB_SIZE = 512;
/** The space marker SentencePiece puts in pieces in place of ' '. */
export const SPACE_MARK = '\u2581';

/** llama.cpp token attribute codes (llama_token_type in GGUF). */
export const TokenType = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 } as const;

export const UNK_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;
export const IM_START_ID = 3;
export const IM_END_ID = 4;
export const FIRST_BYTE_ID = 5;
export const FIRST_PIECE_ID = FIRST_BYTE_ID + 256;

export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';

/** ChatML, as Jinja: what tokenizer.chat_template holds and what prompt.ts renders by hand. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export interface Vocabulary {
  readonly tokens: readonly string[];
  readonly scores: Float32Array;
  readonly types: Int32Array;
}

const PUNCTUATION = ['.', ',', '!', '?', "'", '-', ':', ';', '(', ')', '"', '/'];
const COMMON_PAIRS = ['th', 'he', 'in', 'er', 'an', 're', 'on', 'at', 'en', 'nd', 'es', 'or', 'te', 'ed', 'is', 'it', 'al', 'ar', 'st', 'ng'];
/** Words in a rough order of frequency; enough of them to fill the vocabulary with their prefixes. */
const WORDS = [
  'the',
  'of',
  'and',
  'to',
  'in',
  'is',
  'it',
  'that',
  'for',
  'on',
  'as',
  'with',
  'was',
  'are',
  'be',
  'this',
  'by',
  'at',
  'from',
  'or',
  'an',
  'but',
  'not',
  'have',
  'one',
  'all',
  'can',
  'we',
  'you',
  'they',
  'will',
  'each',
  'when',
  'so',
  'pool',
  'node',
  'model',
  'token',
  'slot',
  'queue',
  'cache',
  'prompt',
  'engine',
  'request',
  'stream',
  'answer',
  'hub',
  'route',
  'peer',
  'warm',
  'fast',
  'slow',
  'time',
  'work',
  'order',
  'turn',
  'back',
  'while',
  'every',
  'across',
  'held',
  'more',
  'less',
  'first',
  'last',
  'next',
  'same',
  'other',
  'many',
  'some',
  'what',
  'which',
  'there',
  'their',
  'here',
];

function buildPieces(): string[] {
  const pieces: string[] = [];
  const seen = new Set<string>();
  const add = (p: string): void => {
    if (!seen.has(p) && pieces.length < VOCAB_SIZE - FIRST_PIECE_ID) {
      seen.add(p);
      pieces.push(p);
    }
  };
  add(SPACE_MARK);
  for (let c = 97; c <= 122; c++) add(String.fromCharCode(c));
  for (let d = 0; d <= 9; d++) add(String(d));
  for (const p of PUNCTUATION) add(p);
  for (let c = 97; c <= 122; c++) add(SPACE_MARK + String.fromCharCode(c));
  for (const p of COMMON_PAIRS) add(p);
  for (const word of WORDS) {
    const spelled = SPACE_MARK + word;
    for (let end = 2; end <= spelled.length; end++) add(spelled.slice(0, end));
  }
  // Capitals last, as far as room allows: rarer, and byte fallback covers the rest.
  for (let c = 65; c <= 90; c++) add(String.fromCharCode(c));
  for (let c = 65; c <= 90; c++) add(SPACE_MARK + String.fromCharCode(c));
  return pieces;
}

function byteToken(b: number): string {
  return `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
}

/** Builds the vocabulary; the same every call. */
export function buildVocabulary(): Vocabulary {
  const tokens: string[] = ['<unk>', '<s>', '</s>', IM_START, IM_END];
  const types: number[] = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL, TokenType.CONTROL, TokenType.CONTROL];
  const scores: number[] = [0, 0, 0, 0, 0];
  for (let b = 0; b < 256; b++) {
    tokens.push(byteToken(b));
    types.push(TokenType.BYTE);
    scores.push(0);
  }
  const pieces = buildPieces();
  // Longer pieces score higher so merges reach whole words; ties by list order (earlier = more common).
  pieces.forEach((p, i) => {
    tokens.push(p);
    types.push(TokenType.NORMAL);
    scores.push(-1000 + [...p].length * 100 - i * 0.01);
  });
  // Fill any remaining room with unused placeholders so the size is always VOCAB_SIZE.
  while (tokens.length < VOCAB_SIZE) {
    tokens.push(`<pad_${tokens.length}>`);
    types.push(TokenType.UNUSED);
    scores.push(-1e9);
  }
  return { tokens, scores: Float32Array.from(scores), types: Int32Array.from(types) };
}

/** Ids of the tokens generation must never produce: bytes (they can split a UTF-8 character), controls that are not an end, unused. */
export function bannedTokenIds(v: Vocabulary): number[] {
  const out: number[] = [];
  v.types.forEach((type, id) => {
    if (id === EOS_ID || id === IM_END_ID) return;
    if (type !== TokenType.NORMAL) out.push(id);
  });
  return out;
}
