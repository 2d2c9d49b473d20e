/**
 * The benchmark's inputs, as data: a fleet (nodes and what their engines do) and a workload
 * (agents, chat, embeddings, a seed). Parsed with zod so a typo in a file is an error, not a
 * silently different benchmark.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const RANGE = z.tuple([z.number().nonnegative(), z.number().nonnegative()]).refine(([a, b]) => a <= b, 'a range is [low, high]');

const FAULT = z.discriminatedUnion('kind', [
  /** Every chat request is answered 500 "model failed to load" after failMs (core-4, spec "Cold-start"). */
  z.object({ kind: z.literal('fails'), failMs: z.number().positive(), fromS: z.number().nonnegative(), toS: z.number().positive() }),
  /** With this probability a chat answer is nothing but <unusedN> placeholders (core-2's gemma4, 2026-09-29). */
  z.object({ kind: z.literal('placeholders'), probability: z.number().min(0).max(1), fromS: z.number().nonnegative(), toS: z.number().positive() }),
]);

export const NODE = z.object({
  name: z.string().min(1),
  /** Where the rates come from: "spec" when the spec measured this node, "assigned" when picked inside the spec's range. */
  source: z.enum(['spec', 'assigned']),
  /**
   * Whether the engine reads prompts on a GPU. Not the same as the machine having one: core-7
   * has a GPU, but its Ollama reads prompts on the CPU (spec, 2026-09-27 capture).
   */
  gpu: z.boolean(),
  /**
   * What tier detection would find on the machine, for the hardwareTier its Hub publishes
   * (hardware.ts calls the Hub's rule on these). Linux GPUs only: Apple's unified memory is
   * sized by the probe, not by the rule.
   */
  hardware: z.object({
    /** Each GPU detection would find, with its memory as the driver reports it; [] for none. */
    gpus: z.array(z.object({ vendor: z.enum(['nvidia', 'amd']), memoryGiB: z.number().positive() })),
    /** Total system memory. */
    memoryGiB: z.number().positive(),
    /**
     * "spec" when the spec states the machine's GPU (beta-red's 10 GB card, fzzy's size_vram 0,
     * core-7 advertising a high tier), "assigned" when picked to fit its rates. Memory sizes are assigned.
     */
    source: z.enum(['spec', 'assigned']),
  }),
  /** Prompt-read rate on a short context, pool tokens per second (bytes / 4 of the body). */
  prefillTokensPerSec: z.number().positive(),
  /**
   * The context length at which the per-token prefill cost has doubled (attention is quadratic):
   * cost per token at position x is (1 + x / growthTokens) / prefillTokensPerSec.
   */
  growthTokens: z.number().positive(),
  decodeTokensPerSec: z.number().positive(),
  /** OLLAMA_NUM_PARALLEL (or llama-server -np): requests served at once; the rest queue. */
  slots: z.number().int().min(1).max(64),
  /** Whether the node states its slots to the pool (ollamaSlots). */
  statesSlots: z.boolean(),
  /** OLLAMA_CONTEXT_LENGTH: the window a request that names none runs at. */
  defaultNumCtx: z.number().int().positive(),
  /** The context cap the node advertises (inferenceMaxNumCtx); null: states none. */
  maxNumCtx: z.number().int().positive().nullable(),
  /** Loading the model from disk (cold, or a reload for another num_ctx), ms. */
  loadMs: z.number().nonnegative(),
  faults: z.array(FAULT).default([]),
});

export const FLEET = z.object({
  description: z.string(),
  model: z.string().min(1),
  embedModel: z.string().min(1),
  /** Ollama's keep_alive: an engine idle this long unloads the model (and its prompt caches). */
  keepAliveMs: z.number().positive(),
  /** Share of an engine's compute one decoding request takes from prefills running beside it. */
  decodeShare: z.number().min(0).max(1),
  /** Embeddings are short and run beside the chat model: a fixed time per call, ms. */
  embedMs: z.object({ gpu: z.number().positive(), cpu: z.number().positive() }),
  nodes: z.array(NODE).min(2),
});

const AGENT = z.object({
  name: z.string().min(1),
  /** Sessions of this agent over the run. */
  sessions: z.number().int().min(0),
  /** Nodes whose Hub these sessions enter through. */
  entries: z.array(z.string()).min(1),
  /** System and tool prefix, shared byte for byte by every session of the agent. */
  systemTokens: z.number().int().positive(),
  /** History at the first turn. */
  firstHistoryTokens: RANGE,
  /** What each turn appends (the answer, tool results, the next user message). */
  appendTokens: RANGE,
  turns: RANGE,
  /** A session stops growing past this prompt size (the agent compacts). */
  maxPromptTokens: z.number().int().positive(),
  /** Chance that a turn fires 2-3 calls at once on the same prefix (parallel tool calls, subagents). */
  parallelProbability: z.number().min(0).max(1),
  outputTokens: RANGE,
  /** Tool time between a turn's answer and the next call, ms. */
  thinkMs: RANGE,
  /** options.num_ctx on the native route; null: an OpenAI-compatible client that names none. */
  numCtx: z.number().int().positive().nullable(),
});

export const WORKLOAD = z.object({
  description: z.string(),
  seed: z.number().int(),
  /** Sessions start uniformly over this window; the run lasts until every request settles. */
  startWindowS: z.number().positive(),
  agents: z.array(AGENT),
  chat: z.object({ perMinute: z.number().nonnegative(), promptTokens: RANGE, outputTokens: RANGE, entries: z.array(z.string()).min(1) }),
  embeddings: z.object({ perMinute: z.number().nonnegative(), inputTokens: RANGE, entries: z.array(z.string()).min(1) }),
});

export type NodeSpec = z.infer<typeof NODE>;
export type FleetSpec = z.infer<typeof FLEET>;
export type AgentSpec = z.infer<typeof AGENT>;
export type WorkloadSpec = z.infer<typeof WORKLOAD>;

export function readFleet(path: string): FleetSpec {
  return FLEET.parse(JSON.parse(readFileSync(path, 'utf8')));
}

export function readWorkload(path: string): WorkloadSpec {
  return WORKLOAD.parse(JSON.parse(readFileSync(path, 'utf8')));
}
