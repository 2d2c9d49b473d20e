/**
 * One engine's own report as a status cell: what it says it is running and holding waiting, its
 * and its slot count. Empty when the engine said nothing (its figures are null).
 */
import type { BackendStatus } from '../../status/pool-status.js';

export function engineReportCell(b: Pick<BackendStatus, 'engineReported'>): string {
  const r = b.engineReported;
  if (r === null) return '';
  const parts: string[] = [];
  if (r.running !== null) parts.push(`${r.running} running`);
  if (r.waiting !== null) parts.push(`${r.waiting} waiting`);
  if (r.slots !== null) parts.push(`${r.slots} slot${r.slots === 1 ? '' : 's'}`);
  if (r.beyondThisHub !== null && r.beyondThisHub > 0) parts.push(`${r.beyondThisHub} not from this Hub`);
  return parts.length === 0 ? '' : `engine says ${parts.join(', ')}`;
}
