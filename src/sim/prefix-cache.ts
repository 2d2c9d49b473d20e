/**
 * The per-slot prompt cache: each slot keeps the text it last processed (prompt plus answer), and
 * a new prompt only has to prefill what differs from the longest shared prefix.
 */
import { CHARS_PER_TOKEN, countTokens } from './tokens.js';

/** Length in characters of the prefix two texts share. */
export function commonPrefixChars(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Whole tokens of `prompt` served from a slot holding `cached`. llama.cpp always evaluates at least
 * the last prompt token again, so an identical prompt reports one token less than its length; that
 * also keeps a prefill duration non-zero, which Ollama would otherwise omit as empty.
 */
export function cachedTokens(cached: string, prompt: string): number {
  const shared = Math.floor(commonPrefixChars(cached, prompt) / CHARS_PER_TOKEN);
  return Math.max(0, Math.min(shared, countTokens(prompt) - 1));
}

export class PrefixCache {
  #text = '';

  get text(): string {
    return this.#text;
  }

  get tokens(): number {
    return countTokens(this.#text);
  }

  matchTokens(prompt: string): number {
    return cachedTokens(this.#text, prompt);
  }

  remember(text: string): void {
    this.#text = text;
  }

  /** Keep only what is still valid when a request stops part-way: the part it shared with the old contents. */
  truncateToSharedWith(prompt: string): void {
    this.#text = this.#text.slice(0, commonPrefixChars(this.#text, prompt));
  }

  clear(): void {
    this.#text = '';
  }
}
