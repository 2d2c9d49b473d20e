/**
 * The Hub's structured log: one JSON line per event (pino). Callers log metadata only;
 * a prompt, a request body or a response never reaches a log line.
 *
 * Secrets are removed here, by the logger, not by each caller: any field below named like a
 * credential (at the top of a log object or one level down, and the credential headers of a
 * logged header set) is written as "[redacted]". A caller that logs a pairing body, a peer
 * row or a request's headers by mistake therefore leaks nothing to stdout or the log file.
 */
import { multistream, pino, type DestinationStream, type Level, type Logger, type LoggerOptions, type StreamEntry } from 'pino';
import { RotatingLogFile } from '../logs/log-file.js';

export type { Logger } from 'pino';

/** Field names that carry a secret: keys, tokens, PINs, passwords and authorization headers. */
const SECRET_FIELDS = [
  'token',
  'pin',
  'key',
  'apiKey',
  'operatorKey',
  'privateKey',
  'secret',
  'password',
  'authorization',
  'cookie',
  'identitySecret',
  'presentTokenSealed',
  'issuedTokenHash',
] as const;
/** Headers that authenticate a request, wherever a header set is logged. */
const SECRET_HEADERS = ['authorization', 'cookie', 'x-hub-pool-signature', 'x-api-key'] as const;

export const REDACTED = '[redacted]';

/** The pino redact paths: each secret field at the top and one level down, and secret headers. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_HEADERS.flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]),
];

function options(level: string): LoggerOptions {
  return { level, base: { service: 'cihub' }, timestamp: pino.stdTimeFunctions.isoTime, redact: { paths: [...REDACT_PATHS], censor: REDACTED } };
}

export function createLogger(level: string, destination: DestinationStream = process.stdout): Logger {
  return pino(options(level), destination);
}

/**
 * The logger `cihub serve` runs with: every line to stdout (unless `stdout` is false, as in the
 * demo) and to the rotated file in the data dir that `cihub logs` reads.
 */
export function createHubLogger(level: string, dataDir: string, opts: { stdout?: boolean } = {}): { logger: Logger; file: RotatingLogFile } {
  const file = new RotatingLogFile(dataDir);
  // multistream filters per stream (default info): each stream gets the logger's own level, so
  // HUB_LOG_LEVEL=debug reaches both.
  const streamLevel = (level === 'silent' ? 'fatal' : level) as Level;
  const streams: StreamEntry[] = [{ level: streamLevel, stream: file }];
  if (opts.stdout !== false) streams.push({ level: streamLevel, stream: stdoutForLogs() });
  return { logger: pino(options(level), multistream(streams)), file };
}

/** One for the process, however many Hub loggers it makes (tests make many): one listener each on stdout and stderr. */
let stdoutDestination: DestinationStream | null = null;

function stdoutForLogs(): DestinationStream {
  if (stdoutDestination === null) {
    stdoutDestination = outlivingReader(process.stdout);
    // The log file reports its own failures on stderr, whose reader can go away the same way.
    process.stderr.on('error', () => {});
  }
  return stdoutDestination;
}

/**
 * A stream as a log destination that survives losing its reader. When whatever reads the Hub's
 * stdout goes away (journald restarted, `cihub serve | tee` with tee killed), the next write
 * fails with EPIPE, emitted as an 'error' event; with no listener that ended the Hub at its next
 * log line. Here the stream is dropped instead, and the log file carries on alone.
 */
function outlivingReader(out: NodeJS.WritableStream & { readonly destroyed?: boolean }): DestinationStream {
  let lost = false;
  const drop = () => {
    lost = true;
  };
  out.on('error', drop);
  return {
    write(line: string) {
      if (lost || out.destroyed === true) return;
      try {
        out.write(line);
      } catch {
        drop();
      }
    },
  };
}
