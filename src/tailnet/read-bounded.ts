/**
 * Reads a small JSON answer from a machine this Hub does not control, up to a stated size. Past
 * the limit the read is abandoned (the connection is destroyed) and the answer counts as bad.
 */
import type { Readable } from 'node:stream';

export async function readJsonBounded(body: Readable, maxBytes: number): Promise<{ ok: true; json: unknown } | { ok: false; reason: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return { ok: false, reason: `answer larger than ${maxBytes} bytes` };
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, reason: 'answer is not JSON' };
  }
}
