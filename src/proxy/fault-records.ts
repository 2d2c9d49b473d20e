/**
 * What a walk tells the Hub's withholding records: output faults per engine and model, local
 * failures per backend and model, and the clean answers that end both.
 */
import type { Candidate } from '../placement/types.js';
import type { OutputFault } from './output-check.js';
import type { WalkDeps, WalkRequest } from './walk-types.js';
import { candidateKey, unservableKey, type StrikeMark } from './withhold-book.js';

/**
 * An output fault: two within five minutes withhold that engine for that model, here or on the
 * peer. A peer's key names the node, not the engine (the peer picks which of its engines serves),
 * so the warning adds the engine the peer's mark says gave the answer: the operator's next step is
 * that engine on that node.
 */
export function strikeOutput(deps: WalkDeps, req: WalkRequest, answered: Candidate, fault: OutputFault): void {
  // Under the key placement reads withholds by: node, engine and model.
  const key = candidateKey(answered, req.model);
  if (deps.outputFaults.strike(key, fault)) {
    const via = answered.peerId !== null && answered.engine !== null ? ` (its ${answered.engine} gave the answers)` : '';
    deps.logger.warn(
      { requestId: req.requestId, engine: key, backend: answered.engine, fault },
      `withholding ${key}${via} after repeated ${fault}: it is asked only when every other candidate fails`,
    );
  }
}

/** A local engine's failure on the model; a peer candidate's engine is the peer's to record. */
export function strikeUnservable(deps: WalkDeps, req: WalkRequest, c: Candidate, reason: string): void {
  if (c.backendId === null || c.engine === null) return;
  if (deps.unservable.strike(unservableKey(c.backendId, c.engine, req.model), reason)) deps.onWithholdChange(c.backendId, req.model, true, reason);
}

/** Where both records' strikes stood when an attempt began. */
export interface FaultMarks {
  readonly output: StrikeMark;
  readonly unservable: StrikeMark;
}

export function faultMarks(deps: WalkDeps): FaultMarks {
  return { output: deps.outputFaults.mark(), unservable: deps.unservable.mark() };
}

/** A clean, complete answer ends both records for what served it, unless a strike came after its attempt began. */
export function clearFaults(deps: WalkDeps, req: WalkRequest, served: Candidate, since: FaultMarks): void {
  // An empty book (the usual case) builds no key: this runs on every clean answer.
  if (!deps.outputFaults.isEmpty) deps.outputFaults.clear(candidateKey(served, req.model), since.output);
  if (
    served.backendId !== null &&
    served.engine !== null &&
    !deps.unservable.isEmpty &&
    deps.unservable.clear(unservableKey(served.backendId, served.engine, req.model), since.unservable)
  ) {
    deps.onWithholdChange(served.backendId, req.model, false, 'served');
  }
}
