/**
 * The HTTP body a trace request becomes when it is replayed against real Hubs. The simulated
 * engine (src/sim) counts a token per four characters and caches per slot by shared text, so each
 * segment of the trace request becomes text of four characters a token, the same text wherever
 * the segment recurs: an agent's system prefix is byte-identical across its sessions, and a
 * session's history at one turn is a prefix of its history at the next. The engine then reuses
 * exactly the prefix the discrete-event model counts as shared.
 *
 * The message layout keeps the proxy's session digest (the system messages and the first message
 * after them) fixed for a session: system prefix, then a short line naming the session, then the
 * history, then this call's own text.
 */
import { CHARS_PER_TOKEN } from '../../../src/sim/tokens.js';
import type { TraceRequest } from '../trace.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz     ';

/** Deterministic text per segment id, generated once and extended as longer prefixes are asked for. */
export class SegmentText {
  readonly #texts = new Map<string, { text: string; state: number }>();

  /** The first `chars` characters of the text for `id`: the same for every call, and a prefix of any longer one. */
  text(id: string, chars: number): string {
    let entry = this.#texts.get(id);
    if (entry === undefined) {
      let state = 0x811c9dc5;
      for (let i = 0; i < id.length; i++) state = Math.imul(state ^ id.charCodeAt(i), 0x01000193) >>> 0;
      entry = { text: '', state: state || 1 };
      this.#texts.set(id, entry);
    }
    if (entry.text.length < chars) {
      const parts: string[] = [entry.text];
      let state = entry.state;
      for (let i = entry.text.length; i < chars; i++) {
        // xorshift32: cheap, stable across runs and platforms.
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        parts.push(LETTERS[state % LETTERS.length]!);
      }
      entry.text = parts.join('');
      entry.state = state;
    }
    return entry.text.slice(0, chars);
  }
}

/** The JSON body for `r` with the model name the engines serve. */
export function requestBody(r: TraceRequest, model: string, texts: SegmentText): Record<string, unknown> {
  const seg = (i: number) => {
    const s = r.segments[i];
    return s === undefined ? '' : texts.text(s.id, s.tokens * CHARS_PER_TOKEN);
  };
  const messages =
    r.kind === 'agent'
      ? [
          { role: 'system', content: seg(0) },
          { role: 'user', content: `session ${r.sessionId ?? ''}` },
          { role: 'user', content: seg(1) },
          { role: 'user', content: seg(2) },
        ]
      : [{ role: 'user', content: seg(0) }];
  if (r.path === '/api/chat') {
    return { model, messages, stream: r.stream, options: { num_predict: r.outputTokens, ...(r.numCtx === null ? {} : { num_ctx: r.numCtx }) } };
  }
  return { model, messages, stream: r.stream, max_tokens: r.outputTokens };
}
