/**
 * The session key prefix affinity remembers placements under (spec, "Prefix affinity", The
 * key). An app that knows its session names it with X-Hub-Pool-Session; otherwise the proxy
 * digests the head of the prompt, which stays byte-identical across every call of one session
 * however long the conversation grows. The model is part of both forms, since a prompt cache
 * belongs to one loaded model.
 *
 * The whole head is digested, never a window of it: a build that read only the first 4 KB
 * gave six sessions sharing a 25k-token system prompt one key, and herded them onto one node
 * (core-2, 2026-09-21). The key itself is an opaque digest and goes nowhere but the in-memory
 * affinity table: never into a log line or a routing-log row.
 */
import { createHash } from 'node:crypto';

/** The request header an app names its session with. */
export const SESSION_HEADER = 'x-hub-pool-session';

/** 1-128 characters of letters, digits and . _ : @ / + = -, starting alphanumeric; anything else is ignored. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,127}$/;

/** Where a key came from, as the routing-log row names it. */
export type SessionKeySource = 'header' | 'hashed';

export interface SessionKey {
  /** A SHA-256 hex digest; never logged. */
  readonly key: string;
  readonly source: SessionKeySource;
}

/** The header's value when it is a valid session id; null when absent, repeated or malformed. */
export function validSessionHeader(value: string | readonly string[] | undefined): string | null {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value) ? value : null;
}

/**
 * The key for one request, or null when the body has no head to digest (no messages, no
 * prompt): such a request gets no affinity rather than sharing one empty key with every other.
 */
export function sessionKey(model: string, sessionHeader: string | null, body: Readonly<Record<string, unknown>>): SessionKey | null {
  if (sessionHeader !== null) return { key: digest(['header', model, sessionHeader]), source: 'header' };
  const head = promptHead(body);
  return head === null ? null : { key: digest(['hashed', model, head]), source: 'hashed' };
}

/**
 * The head of the prompt as JSON text: for a chat body, the leading system message(s) and the
 * first message after them, whole; for a completion or generate body, its system and prompt
 * fields, whole (they have no turn structure to stop at). null when there is none.
 */
export function promptHead(body: Readonly<Record<string, unknown>>): string | null {
  if (Array.isArray(body.messages)) {
    const messages: readonly unknown[] = body.messages;
    let end = 0;
    while (end < messages.length && isSystem(messages[end])) end += 1;
    const head = messages.slice(0, Math.min(messages.length, end + 1));
    return head.length === 0 ? null : JSON.stringify(head);
  }
  const system = body.system ?? null;
  const prompt = body.prompt ?? null;
  if (system === null && prompt === null) return null;
  return JSON.stringify([system, prompt]);
}

function isSystem(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { role?: unknown }).role === 'system';
}

/** One SHA-256 over the parts, each length-prefixed so no two different part lists hash the same text. */
function digest(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  return hash.digest('hex');
}
