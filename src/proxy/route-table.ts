/**
 * The app-facing routes (spec, "Endpoints an app sees through the proxy"), both dialects.
 * Routed routes carry a model in the body and are placed; local-only routes answer for
 * this node (or, for listings, for the pool). Model management (pull, push, delete, copy,
 * create) is deliberately absent: it is a node-local administrative action.
 */
import type { ProxyDialect } from '../engines/types.js';

export interface RoutedRoute {
  readonly path: string;
  readonly dialect: ProxyDialect;
  /** Chat and completion routes: a non-streamed answer is read whole before it is sent. */
  readonly completion: boolean;
  /** Ollama's native chat and generate stream unless the body says stream: false; the OpenAI routes only when it says stream: true. */
  readonly streamsByDefault: boolean;
}

export const ROUTED_ROUTES: readonly RoutedRoute[] = [
  { path: '/v1/chat/completions', dialect: 'openai', completion: true, streamsByDefault: false },
  { path: '/v1/completions', dialect: 'openai', completion: true, streamsByDefault: false },
  { path: '/v1/embeddings', dialect: 'openai', completion: false, streamsByDefault: false },
  { path: '/api/chat', dialect: 'ollama', completion: true, streamsByDefault: true },
  { path: '/api/generate', dialect: 'ollama', completion: true, streamsByDefault: true },
  { path: '/api/embed', dialect: 'ollama', completion: false, streamsByDefault: false },
  { path: '/api/embeddings', dialect: 'ollama', completion: false, streamsByDefault: false },
];

/** Native routes that change what a node holds: never relayed. Ollama addresses a blob by its digest (HEAD and POST /api/blobs/:digest). */
export const MODEL_MANAGEMENT_PATHS: readonly string[] = [
  '/api/pull',
  '/api/push',
  '/api/delete',
  '/api/copy',
  '/api/create',
  '/api/blobs',
  '/api/blobs/:digest',
];

/** The prefix under which apps reach the proxy. */
export const PROXY_PREFIX = '/api/inference/pool';

const OPENAI_PREFIX = `${PROXY_PREFIX}/v1/`;
const OLLAMA_PREFIX = `${PROXY_PREFIX}/api/`;

/**
 * The dialect an app speaks on a path (query string or not): OpenAI under the prefix's /v1/,
 * Ollama under its /api/ and at the prefix itself, where Ollama's own CLI sends its heartbeat.
 * Null elsewhere: the operator and peer routes share the prefix, and their errors keep the
 * operator shape.
 */
export function appDialectOf(url: string): ProxyDialect | null {
  if (url.startsWith(OPENAI_PREFIX)) return 'openai';
  if (url.startsWith(OLLAMA_PREFIX)) return 'ollama';
  const path = url.split('?')[0];
  if (path === PROXY_PREFIX || path === `${PROXY_PREFIX}/`) return 'ollama';
  return null;
}
