/**
 * A PlacementContext for unit tests: a judged chat route, a small prompt, no node statements,
 * nothing withheld. Each test overrides only the facts its rule reads.
 */
import type { NodeLimits, PlacementContext } from './types.js';

export const FIXTURE_NOW_MS = Date.parse('2026-09-21T20:00:00Z');

export function placementContext(over: Partial<PlacementContext> = {}): PlacementContext {
  return {
    model: 'qwen3:8b',
    pins: [],
    route: { path: '/v1/chat/completions', judgesPrompt: true },
    estimatedTokens: 100,
    window: { numCtx: 100, source: 'estimated' },
    nowMs: FIXTURE_NOW_MS,
    limits: new Map(),
    withheld: new Map(),
    ...over,
  };
}

/** A limits map from `{ node: { maxPromptTokens?, maxNumCtx? } }`; unnamed figures are null. */
export function limits(byNode: Record<string, Partial<NodeLimits>>): ReadonlyMap<string, NodeLimits> {
  return new Map(Object.entries(byNode).map(([node, l]) => [node, { maxPromptTokens: l.maxPromptTokens ?? null, maxNumCtx: l.maxNumCtx ?? null }]));
}
