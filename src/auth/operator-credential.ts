/**
 * Who is calling an operator route. The operator key is compared in constant time; an API
 * key is looked up only on a GET or HEAD (spec, "Reading these without an operator
 * credential"), so a write never pays for a key-store query and a qa:read key can never write.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord } from '../store/api-keys.js';
import { bearerToken } from './bearer.js';

export type Caller = { readonly kind: 'operator' } | { readonly kind: 'qa-read'; readonly key: ApiKeyRecord } | { readonly kind: 'none' };

/** What an operator route lets a qa:read key do. */
export type RouteAccess = 'operator' | 'observability-read';

export type AccessVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly status: 401 | 403; readonly code: 'HUB_ERR_UNAUTHORIZED' | 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED' };

export function sameSecret(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

export function identifyCaller(authorization: string | undefined, method: string, operatorKey: string, lookup: (key: string) => ApiKeyRecord | null): Caller {
  const token = bearerToken(authorization);
  if (token === null) return { kind: 'none' };
  if (sameSecret(token, operatorKey)) return { kind: 'operator' };
  if (method !== 'GET' && method !== 'HEAD') return { kind: 'none' };
  const key = lookup(token);
  return key?.scope === 'qa:read' ? { kind: 'qa-read', key } : { kind: 'none' };
}

export function decideAccess(caller: Caller, access: RouteAccess): AccessVerdict {
  if (caller.kind === 'operator') return { allowed: true };
  if (caller.kind === 'qa-read') {
    return access === 'observability-read' ? { allowed: true } : { allowed: false, status: 403, code: 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED' };
  }
  return { allowed: false, status: 401, code: 'HUB_ERR_UNAUTHORIZED' };
}
