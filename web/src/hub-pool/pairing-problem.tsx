import type { PeerView } from '../types';
import { pairingProblemWords } from '../words';

/** A pairing state that needs an operator on each Hub, with its fix; nothing when there is none. */
export function PairingProblem({ p }: { p: PeerView }) {
  const words = pairingProblemWords(p);
  return words === null ? null : (
    <p className="small notice bad" data-testid="pairing-problem">
      {words}
    </p>
  );
}
