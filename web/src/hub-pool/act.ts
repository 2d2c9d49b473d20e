import { notToldWords } from '../words';

export type Flash = { readonly tone: 'good' | 'warn' | 'bad'; readonly text: string; readonly detail?: string } | null;

/** The answer of Unpair, Reject and Cancel request: whether the other Hub was told. */
export interface Removal {
  readonly notified: boolean;
}

/** Runs a change, says how it went (a sentence, or one made from the answer), and reads status again. */
export type Act = (run: () => Promise<unknown>, done: string | ((result: unknown) => Flash)) => Promise<boolean>;

/** The sentence after Unpair, Reject or Cancel request: `done`, or, when the other Hub was not told, what to do there. */
export const removal =
  (verb: 'unpair' | 'reject' | 'cancel', peer: string, self: string | null, done: string) =>
  (result: unknown): Flash =>
    (result as Removal | null)?.notified === false ? { tone: 'warn', text: notToldWords(verb, peer, self) } : { tone: 'good', text: done };
