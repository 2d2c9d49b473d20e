/**
 * Step lines: one line on stderr before anything that can take more than a second (starting
 * the demo's engines and Hubs, a pairing round trip, generating a model on first use), so a
 * person at a terminal sees what it is waiting for. Silent when stderr is not a terminal, so
 * scripts, pipes and --json consumers get exactly what they asked for and nothing else.
 */
import { existsSync } from 'node:fs';
import { modelPath, type ModelSize } from '../llama/tiny-model.js';
import { writeErr } from './output.js';

export interface StepSink {
  readonly isTTY?: boolean;
}

/** Writes `text` as a step line when `sink` (process.stderr) is a terminal. */
export function step(text: string, sink: StepSink = process.stderr): void {
  if (sink.isTTY === true) writeErr(`… ${text}\n`);
}

/** A step line before a model is generated on first use (seconds of random weights); nothing once it is cached. */
export function stepIfModelMissing(size: ModelSize, dir?: string, sink: StepSink = process.stderr): void {
  const path = modelPath(size, dir);
  if (!existsSync(path)) step(`generating the ${size} model on first use (${path})`, sink);
}
