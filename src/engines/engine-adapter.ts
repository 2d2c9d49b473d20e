/**
 * EngineAdapter: how the Hub talks to one kind of engine. Ollama's native adapter and the
 * OpenAI-compatible one implement it; tests run both through one shared contract suite.
 */
import type { Dispatcher } from 'undici';
import type { EngineKind } from './engine-kind.js';
import type { ProbeAnswer, ProxyDialect } from './types.js';

export interface EngineAdapter {
  readonly kind: EngineKind;
  /** Asks the engine what it is and what it holds. Never throws: a failure is an answer. */
  probe(baseUrl: string, dispatcher: Dispatcher, signal: AbortSignal): Promise<ProbeAnswer>;
  /**
   * The engine path that serves an app-facing path (e.g. '/v1/chat/completions' or
   * '/api/chat'), or null when this engine does not speak that dialect.
   */
  upstreamPath(appPath: string): string | null;
  /** Whether this engine can serve requests in the given dialect. */
  speaks(dialect: ProxyDialect): boolean;
}
