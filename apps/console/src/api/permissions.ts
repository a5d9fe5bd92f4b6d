import type { ApiClient } from './api-client.js';
import { ACTION_OPERATIONS, type ActionOperation } from './operations.js';

export type Permission = { allowed: true } | { allowed: false; reason: string };
export type Permissions = Record<ActionOperation, Permission>;

/**
 * A field no operation has: the gateway checks the signature and the key's permission before it reads the body,
 * then refuses the unknown field (400) before anything reaches the registry. So the answer says whether the key
 * may call the operation (403 names the refusal) and nothing is changed.
 */
export const PROBE_BODY = { consolePermissionProbe: true } as const;

export function permissionFrom(result: { ok: boolean; status?: number; messages?: string[] }): Permission {
  if (result.ok || result.status !== 403) return { allowed: true };
  return { allowed: false, reason: result.messages?.join('; ') || 'the access key may not call this operation' };
}

export async function probePermissions(client: ApiClient): Promise<Permissions> {
  const entries = await Promise.all(
    ACTION_OPERATIONS.map(async (operation) => [operation, permissionFrom(await client.call(operation, PROBE_BODY))] as const),
  );
  return Object.fromEntries(entries) as Permissions;
}

export const ALL_ALLOWED: Permissions = Object.fromEntries(ACTION_OPERATIONS.map((operation) => [operation, { allowed: true }])) as Permissions;
