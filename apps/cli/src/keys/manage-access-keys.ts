import { Subjects, type AccessKeySummary, type ManageAccessKeysReply, type ManageAccessKeysRequest, type RpcReply } from '@svc/contracts';
import { PROFILE_KEYS } from '../credentials/client-settings';
import { registryAnswer } from './registry-answer';

/** The slice of NatsRequester the key lifecycle commands need, so tests can hand in a fake. */
export interface KeyLifecycleRequester {
  request(subject: typeof Subjects.registryManageAccessKeys, payload: ManageAccessKeysRequest): Promise<RpcReply<ManageAccessKeysReply>>;
}

/** Asks the registry to list, disable, enable, delete, rotate or expire keys. Errors become CliFailure: 1 refused, 2 unreachable. */
export function manageAccessKeys(requester: KeyLifecycleRequester, request: ManageAccessKeysRequest): Promise<ManageAccessKeysReply> {
  return registryAnswer(() => requester.request(Subjects.registryManageAccessKeys, request));
}

/** What a lifecycle command prints: the key table for List, the new secret once for Rotate, a line otherwise. */
export function renderKeyLifecycle(request: ManageAccessKeysRequest, reply: ManageAccessKeysReply): string {
  if (request.action === 'List') return renderKeyTable(reply.accessKeys ?? []);
  if (request.action === 'Rotate') {
    return [
      `Access key ${request.accessKeyId ?? ''} rotated. The replaced secret still signs until ${reply.previousSecretValidUntil ?? 'now'}.`,
      'The new secret is shown only this once. Replace the secret under its [profile] in ~/.svc/credentials:',
      '',
      `${PROFILE_KEYS.accessKeyId} = ${request.accessKeyId ?? ''}`,
      `${PROFILE_KEYS.secretAccessKey} = ${reply.secretKey ?? ''}`,
      '',
    ].join('\n');
  }
  const done = { Disable: 'disabled', Enable: 'enabled', Delete: 'deleted', Expire: request.expiresAt ? `set to expire at ${request.expiresAt}` : 'set never to expire' }[request.action];
  return `Access key ${request.accessKeyId ?? ''} ${done}; it takes effect at the next call (the registry checks every signature).\n`;
}

function renderKeyTable(keys: AccessKeySummary[]): string {
  const header = ['ACCESS KEY ID', 'STATUS', 'REPLICATIONS', 'OPERATIONS', 'EXPIRES', 'DESCRIPTION'];
  const rows = keys.map((key) => [
    key.accessKeyId + (key.bootstrap ? ' (bootstrap)' : ''),
    key.status + (key.previousSecretValidUntil ? ` (replaced secret signs until ${key.previousSecretValidUntil})` : ''),
    key.replicationScope,
    key.allowedOperations.join(','),
    key.expiresAt ?? 'never',
    key.description,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  return [header, ...rows].map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n') + '\n';
}
