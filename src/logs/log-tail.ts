/**
 * Reads the log file as it grows (`cihub logs -f`). The open descriptor is kept across a
 * rotation: the Hub renames hub.log to hub.log.1, and this reader first finishes what was
 * written to the renamed file, then moves to the new hub.log from its start, so no line is
 * lost or read twice at the turn.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** How much one read takes; a larger backlog is read over several. */
const READ_CHUNK_BYTES = 64 * 1024;

export class LogTail {
  readonly #path: string;
  #fd: number | null = null;
  #ino = -1;
  #offset = 0;
  #partial = '';
  /** Keeps a character cut between two reads whole. */
  #decoder = new StringDecoder('utf8');

  /** Starts at `offset` bytes into the current file (its size, to read only what comes next). */
  constructor(path: string, offset: number) {
    this.#path = path;
    this.#offset = offset;
    this.#reopen(false);
  }

  /** Complete lines written since the last call. */
  read(): string[] {
    const lines: string[] = [];
    if (this.#fd === null) this.#reopen(true);
    if (this.#fd === null) return lines;
    lines.push(...this.#drain());
    if (existsSync(this.#path) && statSync(this.#path).ino !== this.#ino) {
      // Rotated: the old file is finished (its descriptor read to the end above); a line it left
      // unterminated is dropped rather than glued to the first line of the new file.
      this.#partial = '';
      this.#decoder = new StringDecoder('utf8');
      this.close();
      this.#reopen(true);
      if (this.#fd !== null) lines.push(...this.#drain());
    } else if (this.#fd !== null && fstatSync(this.#fd).size < this.#offset) {
      this.#offset = 0; // truncated in place
    }
    return lines;
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #reopen(fromStart: boolean): void {
    if (!existsSync(this.#path)) return;
    this.#fd = openSync(this.#path, 'r');
    this.#ino = fstatSync(this.#fd).ino;
    if (fromStart) this.#offset = 0;
  }

  #drain(): string[] {
    const buf = Buffer.alloc(READ_CHUNK_BYTES);
    let text = this.#partial;
    for (;;) {
      const n = readSync(this.#fd!, buf, 0, buf.length, this.#offset);
      if (n === 0) break;
      this.#offset += n;
      text += this.#decoder.write(buf.subarray(0, n));
    }
    const parts = text.split('\n');
    this.#partial = parts.pop() ?? '';
    return parts.filter((l) => l.length > 0);
  }
}
