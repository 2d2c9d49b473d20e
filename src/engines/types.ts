/**
 * What the Hub knows about its local engines. Absent is not zero: a field an engine did
 * not report is null, and its comment says what null means.
 */
import type { EngineKind } from './engine-kind.js';
import type { EngineQueueView } from './engine-queue.js';

/** One model an engine lists. */
export interface ModelInfo {
  readonly name: string;
  /** Ollama's details.parameter_size, e.g. "8.2B"; null when the engine does not say. */
  readonly parameterSize: string | null;
  /** Ollama's capabilities (e.g. "completion", "tools", "embedding"); null when the engine does not say. */
  readonly capabilities: readonly string[] | null;
  /** Bytes on disk; null when the engine does not say. */
  readonly sizeBytes: number | null;
  /**
   * The context window the engine states it runs the model at: Lemonade's context_length (the
   * loaded window while the model runs, else its saved ctx_size), vLLM's max_model_len. Absent or
   * null when the engine states none (Ollama's listing, llama.cpp's and oMLX's carry no such field).
   */
  readonly contextLength?: number | null;
  /**
   * True when Ollama lists the model with remote_host or remote_model: a cloud model it runs off
   * this machine (protocols.md, 2.7), whatever its tag. Absent when no engine says so.
   */
  readonly remote?: boolean;
}

/** The answer one probe of one engine gave. */
export interface ProbeAnswer {
  /** Something answered at the engine's address. */
  readonly running: boolean;
  /** It answered as the engine it is configured as, with a usable model list. */
  readonly healthy: boolean;
  readonly models: readonly ModelInfo[];
  /** Why it is not healthy, in a few words; null when healthy. */
  readonly error: string | null;
}

/** One engine's health as placement reads it. */
export interface BackendView extends ProbeAnswer {
  readonly backendId: string;
  readonly kind: EngineKind;
  readonly url: string;
  /** How old the answer was when it was read, ms; null when no probe has answered yet. */
  readonly probedMsAgo: number | null;
  /**
   * What the engine last said about its own queue and slots (engine-queue.ts).
   * Absent or null: it said nothing, its kind publishes nothing the Hub reads, the last read
   * failed, or the report is older than QUEUE_REPORT_MAX_AGE_MS (health-snapshot.ts).
   */
  readonly engineQueue?: EngineQueueView | null;
}

/** The app-facing routes the proxy relays, by dialect. */
export type ProxyDialect = 'openai' | 'ollama';
