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
  if (opts.stdout !== false) streams.push({ level: streamLevel, stream: process.stdout });
  return { logger: pino(options(level), multistream(streams)), file };
}
