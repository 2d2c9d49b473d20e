/**
 * The boot check's proof that the listener holds the operator key. A boot id alone can be
 * replayed: GET /api/hub/boot answers anyone, so a local process that asked it while the Hub ran
 * could take the port after a crash and answer the id hub.json still records, and the CLI would
 * then send it the key. The CLI sends a fresh random challenge instead, and only the process
 * holding operator.key can answer HMAC-SHA256 over the boot id and that challenge; a recorded
 * answer is no use against the next challenge. The key itself never crosses the wire.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The query key the CLI puts its challenge in. */
export const BOOT_CHALLENGE_QUERY = 'challenge';

/** 32 random bytes as hex: the CLI's challenges are this long, and the Hub takes no other length. */
export const BOOT_CHALLENGE_HEX_CHARS = 64;

const CHALLENGE_PATTERN = new RegExp(`^[0-9a-f]{${BOOT_CHALLENGE_HEX_CHARS}}$`);

/** Whether a query value is a challenge the Hub answers: lower-case hex of the stated length. */
export function isBootChallenge(value: unknown): value is string {
  return typeof value === 'string' && CHALLENGE_PATTERN.test(value);
}

export function newBootChallenge(): string {
  return randomBytes(BOOT_CHALLENGE_HEX_CHARS / 2).toString('hex');
}

/** Hex HMAC-SHA256, keyed with the operator key, over the boot id and the challenge. */
export function bootProof(operatorKey: string, bootId: string, challenge: string): string {
  return createHmac('sha256', operatorKey).update(`cihub boot proof\n${bootId}\n${challenge}`).digest('hex');
}

/** Whether an answered proof is the one the operator key gives, compared in constant time. */
export function bootProofMatches(answered: unknown, operatorKey: string, bootId: string, challenge: string): boolean {
  if (typeof answered !== 'string') return false;
  const expected = Buffer.from(bootProof(operatorKey, bootId, challenge));
  const given = Buffer.from(answered);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
