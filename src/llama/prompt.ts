/**
 * Prompts as token ids. Chat goes through the model's ChatML template:
 *   <|im_start|>role\ncontent<|im_end|>\n ... <|im_start|>assistant\n
 * The markers are added as their control-token ids and the text between them is tokenized
 * without reading special tokens, so a message that merely contains "<|im_end|>" cannot close
 * its turn early. Raw prompts (/api/generate with raw, /v1/completions) are tokenized as
 * llama.cpp's server does, with special tokens read from the text.
 */
import type { LlamaModel, Token } from 'node-llama-cpp';
import { contentText, isRecord } from '../sim/tokens.js';
import { IM_END_ID, IM_START_ID } from './vocab.js';

export interface ChatTurn {
  readonly role: string;
  readonly content: string;
}

/** The messages of a request body as role and text; non-object entries are skipped. */
export function chatTurns(messages: readonly unknown[]): ChatTurn[] {
  return messages.filter(isRecord).map((m) => ({ role: typeof m['role'] === 'string' ? m['role'] : 'user', content: contentText(m['content']) }));
}

function withBos(model: LlamaModel, tokens: Token[]): Token[] {
  const bos = model.tokens.bos;
  return model.tokens.shouldPrependBosToken && bos !== null ? [bos, ...tokens] : tokens;
}

export function chatTokens(model: LlamaModel, turns: readonly ChatTurn[]): Token[] {
  const out: Token[] = [];
  const text = (s: string): void => {
    if (s !== '') out.push(...model.tokenize(s, false));
  };
  for (const turn of turns) {
    out.push(IM_START_ID as Token);
    text(`${turn.role}\n${turn.content}`);
    out.push(IM_END_ID as Token);
    text('\n');
  }
  out.push(IM_START_ID as Token);
  text('assistant\n');
  return withBos(model, out);
}

/** A prompt taken as it is (raw generate, /v1/completions). */
export function rawTokens(model: LlamaModel, prompt: string): Token[] {
  return withBos(model, model.tokenize(prompt, true));
}
