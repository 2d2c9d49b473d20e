/** `cihub api-key create|list|revoke`: keys for apps and monitors that are not the operator. */
import { API_KEY_SCOPES, type ApiKeyRecord } from '../../store/api-keys.js';
import { callHub, findHub, UsageError } from '../hub-client.js';
import { confirm } from '../confirm.js';
import { table } from '../render/pool-status.js';
import type { CommonOptions } from './pool.js';

export async function apiKeyCreate(opts: CommonOptions & { name: string; scope: string; yes: boolean; assumeYes: boolean }): Promise<string> {
  // The scopes are a closed list the help names: another word is a wrong command line, refused before the Hub is asked.
  if (!API_KEY_SCOPES.some((s) => s === opts.scope))
    throw new UsageError(
      `--scope must be ${API_KEY_SCOPES.join(' or ')} (inference for apps, qa:read for monitors); got ${JSON.stringify(opts.scope)}, so no key was created.`,
    );
  const hub = findHub(opts.dataDir);
  await confirm(`Create a ${opts.scope} API key named ${JSON.stringify(opts.name)}? Whoever holds it can call this Hub with that scope.`, opts);
  const created = await callHub<ApiKeyRecord & { key: string }>(hub, 'POST', '/api/hub/api-keys', { name: opts.name, scope: opts.scope });
  if (opts.json) return `${JSON.stringify(created, null, 2)}\n`;
  return [
    `Created ${created.scope} key "${created.name}" (id ${created.id}).`,
    '',
    `  ${created.key}`,
    '',
    'This is the only time the key is shown; store it now. Send it as Authorization: Bearer <key>.',
    '',
  ].join('\n');
}

export async function apiKeyList(opts: CommonOptions): Promise<string> {
  const { keys } = await callHub<{ keys: ApiKeyRecord[] }>(findHub(opts.dataDir), 'GET', '/api/hub/api-keys');
  if (opts.json) return `${JSON.stringify(keys, null, 2)}\n`;
  if (keys.length === 0) return 'No API keys.\n';
  const rows = [
    ['ID', 'NAME', 'SCOPE', 'CREATED', 'STATE'],
    ...keys.map((k) => [k.id, k.name, k.scope, k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : 'live']),
  ];
  return `${table(rows).join('\n')}\n`;
}

export async function apiKeyRevoke(opts: CommonOptions & { id: string; yes: boolean; assumeYes: boolean }): Promise<string> {
  const hub = findHub(opts.dataDir);
  await confirm(`Revoke API key ${opts.id}? Callers using it are refused from now on.`, opts);
  const result = await callHub<{ revoked: string }>(hub, 'DELETE', `/api/hub/api-keys/${encodeURIComponent(opts.id)}`);
  return opts.json ? `${JSON.stringify(result)}\n` : `Revoked API key ${result.revoked}.\n`;
}
