import { notToldWords } from '../words';

export type Flash = {
  readonly tone: 'good' | 'warn' | 'bad';
  readonly text: string;
  readonly detail?: string;
  /**
   * The change did not happen: the Hub refused the call, or gave no answer. Not every bad outcome
   * is one: an Approve whose call back failed did approve here (half paired), and "Not approved"
   * before it would say the opposite of its own words.
   */
  readonly notDone?: true;
} | null;

/** The answer of Unpair, Reject and Cancel request: whether the other Hub was told. */
export interface Removal {
  readonly notified: boolean;
}

/** Takes a change's outcome to say it somewhere of the control's own, beside it. */
export type Say = (outcome: Flash) => void;

/**
 * Runs a change, reads status again, then hands how it went (a sentence, or one made from the
 * answer) to `say`: every control shows its outcome beside itself, where the person is, never at
 * the top of a long page.
 */
export type Act = (run: () => Promise<unknown>, done: string | ((result: unknown) => Flash), say: Say) => Promise<boolean>;

/** The sentence after Unpair, Reject or Cancel request: `done`, or, when the other Hub was not told, what to do there. */
export const removal =
  (verb: 'unpair' | 'reject' | 'cancel', peer: string, self: string | null, done: string) =>
  (result: unknown): Flash =>
    (result as Removal | null)?.notified === false ? { tone: 'warn', text: notToldWords(verb, peer, self) } : { tone: 'good', text: done };
