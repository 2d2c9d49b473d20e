/**
 * Item 6, scale on paper: the 15-node fleet and its workload repeated to N nodes (names get a
 * -rK suffix, each repeat's sessions enter through that repeat's nodes, over a shorter window
 * with the same load per node), run under Hub Pool with
 * affinity and slots on, and what a symmetric pool costs each node: placement CPU per request
 * (measured around the placement calls in this process) and health-poll traffic (every node
 * polls every other every poolHealthPollSeconds; the payload is the real capabilities document
 * for a node advertising the fleet's two models, a hardware tier and four throughput bands).
 */
import { DEFAULT_SETTINGS } from '../../src/config/settings-schema.js';
import { publishCapabilities } from '../../src/peers/capabilities.js';
import { advertOf } from '../../src/peers/throughput-advert.js';
import type { FleetSpec, WorkloadSpec } from './data-files.js';
import { backendViewFixture } from '../../src/engines/backend-view.fixture.js';

export function scaleFleet(fleet: FleetSpec, nodes: number): FleetSpec {
  const out = [];
  for (let i = 0; i < nodes; i++) {
    const base = fleet.nodes[i % fleet.nodes.length]!;
    const rep = Math.floor(i / fleet.nodes.length);
    out.push({ ...base, name: rep === 0 ? base.name : `${base.name}-r${rep}` });
  }
  return { ...fleet, nodes: out };
}

/**
 * The scale runs start sessions over this window rather than the full hour, with sessions and
 * rates cut to match, so the load per node is the same and a 200-node run takes minutes: they
 * measure the cost of placing a request, which needs requests, not hours.
 */
export const SCALE_WINDOW_S = 900;

export function scaleWorkload(w: WorkloadSpec, fleet: FleetSpec, nodes: number): WorkloadSpec {
  const reps = Math.ceil(nodes / fleet.nodes.length);
  const window = Math.min(w.startWindowS, SCALE_WINDOW_S);
  const factor = (nodes / fleet.nodes.length) * (window / w.startWindowS);
  const spread = (entries: readonly string[]) => Array.from({ length: reps }, (_, k) => entries.map((e) => (k === 0 ? e : `${e}-r${k}`))).flat();
  return {
    ...w,
    startWindowS: window,
    agents: w.agents.map((a) => ({ ...a, sessions: Math.round(a.sessions * factor), entries: spread(a.entries) })),
    // Open-loop rates are per minute already: they scale with the node count only.
    chat: { ...w.chat, perMinute: (w.chat.perMinute * nodes) / fleet.nodes.length, entries: spread(w.chat.entries) },
    embeddings: { ...w.embeddings, perMinute: (w.embeddings.perMinute * nodes) / fleet.nodes.length, entries: spread(w.embeddings.entries) },
  };
}

export interface PollTraffic {
  readonly nodes: number;
  /** Bytes of one capabilities body (JSON), before HTTP and TLS framing. */
  readonly bodyBytes: number;
  /** Polls a node sends each minute (to every other node) and answers each minute (from every other). */
  readonly pollsOutPerMinute: number;
  readonly pollsInPerMinute: number;
  /** Capabilities bytes a node downloads per minute from its polls (one body per poll). */
  readonly bytesInPerMinute: number;
  /** Capabilities bytes a node serves per minute to its pollers. */
  readonly bytesOutPerMinute: number;
}

export function pollTraffic(fleet: FleetSpec, nodes: number, pollSeconds = DEFAULT_SETTINGS.poolHealthPollSeconds): PollTraffic {
  const bands = [4096, 8192, 16384, 32768].map((fromTokens) => ({
    fromTokens,
    promptTokens: fromTokens + 1234,
    tokensPerSec: 312.4,
    deadline: false,
    ageMs: 123456,
  }));
  const doc = publishCapabilities({
    nodeUuid: '8d0c7d4e-2f6b-4c1a-9a57-0f3e5b7c9d21',
    backends: [backendViewFixture([fleet.model, fleet.embedModel])],
    inFlightRequests: 3,
    acceptingWork: true,
    maxPromptTokens: null,
    hardwareTier: 'high-end',
    maxNumCtx: 65536,
    ollamaSlots: 4,
    throughput: advertOf([{ node: 'local', backendId: 'ollama', model: fleet.model, bands, decodeTokensPerSec: 31.5, decodeAgeMs: 0 }]),
  });
  const bodyBytes = Buffer.byteLength(JSON.stringify(doc));
  const perMinute = (60 / pollSeconds) * (nodes - 1);
  return {
    nodes,
    bodyBytes,
    pollsOutPerMinute: perMinute,
    pollsInPerMinute: perMinute,
    bytesInPerMinute: perMinute * bodyBytes,
    bytesOutPerMinute: perMinute * bodyBytes,
  };
}
