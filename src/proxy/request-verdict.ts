/**
 * Engine refusals that prove the request itself is bad (spec, "A request no node can serve").
 * Some engines answer 500 for a malformed request, and then every node gives the same answer:
 * on 2026-09-26 one turn with no user message drew that 500 from four nodes while the pool
 * walked nine candidates for 307 s. Only a 500's body is read, bounded, and only an engine's
 * JSON error shape is judged; anything else is no verdict and fails over as before.
 */

export type VerdictSignature = 'no-user-query' | 'missing-messages' | 'invalid-message' | 'chat-template' | 'context-length';

/** No node could answer these: returned at once. The others wait for a second node to agree. */
export const DEFINITIVE_VERDICTS: ReadonlySet<VerdictSignature> = new Set(['no-user-query', 'missing-messages']);

/** Only the first 64 KB of a 500's body are read, and for at most 5 s. */
export const VERDICT_BODY_LIMIT_BYTES = 64 * 1024;
export const VERDICT_BODY_TIMEOUT_MS = 5_000;

interface VerdictPattern {
  readonly signature: VerdictSignature;
  readonly pattern: RegExp;
  /** Which engine says it this way: the evidence for the pattern. */
  readonly engine: string;
}

/**
 * The engines' own wording, most specific first: a Qwen3 template's "no user query" refusal
 * arrives wrapped in "error applying chat template" text on vLLM, and must read as the request's
 * fault (definitive), not the template's.
 */
export const VERDICT_PATTERNS: readonly VerdictPattern[] = [
  // Every gap is bounded ({0,120}, never .*): an unbounded one scans to the end of the message from
  // each place its first words occur, so a 64 KiB message repeating them cost 0.4 s per read.
  { signature: 'no-user-query', pattern: /no user query found in messages/i, engine: 'Qwen3 chat templates (Ollama, llama-server, vLLM)' },
  {
    signature: 'missing-messages',
    pattern: /'messages' is required|messages (is|are) required|messages must not be empty|no messages (were )?provided|\[\] is too short - 'messages'/i,
    engine: 'llama-server, vLLM, Ollama /v1',
  },
  {
    signature: 'context-length',
    pattern: /exceeds? (the )?(available )?context (size|length)|maximum context length|exceed_context_size|input length .{0,120}exceeds|context window/i,
    engine: 'Ollama, llama-server, vLLM',
  },
  {
    signature: 'invalid-message',
    pattern: /missing '?(content|role)'? in message|invalid (chat )?message|message (content|role) (must|is invalid)|expected .{0,120}'content'/i,
    engine: 'llama-server, Lemonade',
  },
  {
    signature: 'chat-template',
    pattern: /chat template|template: |error rendering|jinja|templateerror/i,
    engine: 'Ollama (Go templates), llama-server and vLLM (Jinja)',
  },
];

/** The message of an error body in one of the engines' JSON shapes; null when it is not one. */
export function engineErrorMessage(body: Buffer): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const d = doc as { error?: unknown; message?: unknown; object?: unknown } | null;
  if (typeof d?.error === 'string') return d.error; // Ollama, mlx_lm
  const inner = d?.error as { message?: unknown } | null | undefined;
  if (typeof inner?.message === 'string') return inner.message; // OpenAI shape: llama-server, vLLM, Ollama /v1
  if (d?.object === 'error' && typeof d.message === 'string') return d.message; // older vLLM
  return null;
}

export function classifyVerdict(body: Buffer): VerdictSignature | null {
  const message = engineErrorMessage(body);
  if (message === null) return null;
  return VERDICT_PATTERNS.find((p) => p.pattern.test(message))?.signature ?? null;
}

/** The status the app gets: 400 (the request's fault), except a template that would not render, which can be the node's own copy of the model. */
export function verdictStatus(signature: VerdictSignature): number {
  return signature === 'chat-template' ? 500 : 400;
}
