/**
 * The Hub's structured log: one JSON line per event (pino). Callers log metadata only;
 * a prompt, a request body or a response never reaches a log line.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(level: string, destination: DestinationStream = process.stdout): Logger {
  return pino({ level, base: { service: 'cihub' }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
