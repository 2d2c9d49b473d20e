/**
 * Everything the CLI prints goes through here, so no text a peer, an engine or an app chose
 * can drive the operator's terminal (issue 9, #10: model names in `pool log`, peer names in
 * `pool status`). Control characters are written as \uXXXX: C0 but newline and tab, DEL, C1
 * (which holds the 8-bit CSI and OSC introducers), and the invisible bidirectional and line
 * separator marks that can make text read other than it is. The same spelling is a JSON
 * escape, so a --json document stays valid JSON and means the same strings.
 */

/** Characters that never reach the terminal raw. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * One string made safe to print as part of a line: its newlines and tabs written as \n and \t,
 * the two controls terminalSafe leaves raw because the layout itself uses them. Text a peer or
 * an app chose then cannot start a line of its own that reads as the CLI's.
 */
export function oneLine(text: string): string {
  return text.replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'));
}

/**
 * A document from the Hub made safe to lay out as lines: every string in it passed through
 * oneLine. A model an app named "x\n… ✓ served" then stays inside its cell instead of printing
 * a row of its own in `pool log`. For text output only: --json prints the document as it came,
 * since JSON escapes both already.
 */
export function lineSafe<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc), (_key, value: unknown) => (typeof value === 'string' ? oneLine(value) : value)) as T;
}

export function writeOut(text: string): void {
  process.stdout.write(terminalSafe(text));
}

export function writeErr(text: string): void {
  process.stderr.write(terminalSafe(text));
}
