/**
 * The Hub publishes itself at https://<name>/ with Tailscale Serve once Tailscale is connected
 * (spec, Before you start), and says exactly what to run when Tailscale refuses. It tries at
 * start and then every minute until an attempt settles: published, already published, refused
 * (waiting on the operator), or another entry in the way (never replaced by the Hub). Only when
 * the name comes from the daemon: with the development stand-ins there is nothing to publish.
 */
import type { Logger } from 'pino';
import type { PublishOutcome, TailscaleClient } from './tailscale-client.js';

/** How often an unsettled publish is tried again (Tailscale connecting later, a transient failure). */
export const SERVE_PUBLISH_RETRY_MS = 60_000;

/** Whether another attempt could change anything without the operator. */
export function publishSettled(outcome: PublishOutcome | null): boolean {
  return outcome !== null && (outcome.kind === 'published' || outcome.kind === 'already' || outcome.kind === 'conflict');
}

/** One attempt. The outcome is logged when it differs from the previous one, so a retry loop waiting on the operator says it once. */
export async function publishOnce(client: TailscaleClient, port: number, logger: Logger): Promise<PublishOutcome> {
  const previous = client.lastPublish();
  const outcome = await client.publish(port);
  if (previous !== null && previous.kind === outcome.kind) return outcome;
  switch (outcome.kind) {
    case 'published':
      logger.info({ port }, 'published this Hub with Tailscale Serve at https://<its tailnet name>/');
      break;
    case 'already':
      break;
    case 'refused':
      logger.warn(
        { command: outcome.command, then: outcome.publishCommand, tailscale: outcome.stderr },
        `Tailscale refused the Hub's changes: run once on this machine: ${outcome.command} (then the Hub publishes itself within a minute, or run ${outcome.publishCommand})`,
      );
      break;
    case 'conflict':
      logger.warn(
        { servedThere: outcome.otherTarget, command: outcome.command },
        `Tailscale Serve already serves ${outcome.otherTarget} at this machine's https://<name>/; the Hub leaves it alone. To publish the Hub there instead, run: ${outcome.command}`,
      );
      break;
    case 'failed':
      logger.warn(
        { problem: outcome.problem, command: outcome.command },
        `could not publish this Hub with Tailscale Serve (${outcome.problem}); run: ${outcome.command}`,
      );
      break;
    case 'not-connected':
      logger.debug({ problem: outcome.problem }, 'not publishing with Tailscale Serve yet: Tailscale is not connected');
      break;
  }
  return outcome;
}
