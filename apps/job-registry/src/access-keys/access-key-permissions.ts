import { fieldLabel } from '@svc/api-model';
import type { AccessKeyScope } from '@svc/contracts';

/** What a key may do and on what: the rights a key hands on to the keys it creates or rotates. */
export interface KeyRights {
  allowedOperations: readonly string[];
  replicationScope: AccessKeyScope;
}

export interface ManagedKey {
  accessKeyId: string;
  createdBy: string | null;
}

const ALLOWED_OPERATIONS = fieldLabel(['allowedOperations']);
const REPLICATION_SCOPE = fieldLabel(['replicationScope']);
const ACCESS_KEY_ID = fieldLabel(['accessKeyId']);

/**
 * Which keys a caller sees and manages: an All key every key; an Own key itself and the keys it created. Any
 * other key is answered as one that does not exist, so that an Own key cannot learn which ids exist.
 */
export function mayManage(caller: { accessKeyId: string; replicationScope: AccessKeyScope }, target: ManagedKey): boolean {
  return caller.replicationScope === 'All' || target.accessKeyId === caller.accessKeyId || target.createdBy === caller.accessKeyId;
}

/** Operations of `wanted` that `holder` is not allowed; `*` stands for itself (only a `*` key may grant `*`). */
function operationsBeyond(holder: readonly string[], wanted: readonly string[]): string[] {
  if (holder.includes('*')) return [];
  return wanted.filter((operation) => !holder.includes(operation));
}

/**
 * Why `caller` may not create a key with `wanted` rights (no privilege escalation), by field; empty when it may.
 * A key grants only operations it is allowed itself and a scope no wider than its own (Own < All).
 */
export function grantProblems(caller: KeyRights, wanted: KeyRights): string[] {
  const problems: string[] = [];
  const beyond = operationsBeyond(caller.allowedOperations, wanted.allowedOperations);
  if (beyond.length > 0) {
    problems.push(`${ALLOWED_OPERATIONS}: this key is not allowed ${beyond.map(asWanted).join(', ')}: a key grants only operations it is allowed itself`);
  }
  if (wanted.replicationScope === 'All' && caller.replicationScope !== 'All') {
    problems.push(`${REPLICATION_SCOPE}: this key acts on its own replications only, so it cannot grant All: a key grants a scope no wider than its own`);
  }
  return problems;
}

/**
 * Why `caller` may not rotate `target` (whose new secret it would hold): the same rule as creating, against the
 * target's rights; empty when it may.
 */
export function rotationProblems(caller: KeyRights, target: KeyRights & { accessKeyId: string }): string[] {
  const beyond = operationsBeyond(caller.allowedOperations, target.allowedOperations);
  const wider = target.replicationScope === 'All' && caller.replicationScope !== 'All';
  if (beyond.length === 0 && !wider) return [];
  const reasons = [...(beyond.length > 0 ? [`operations this key is not allowed (${beyond.map(asWanted).join(', ')})`] : []), ...(wider ? ['scope All'] : [])];
  return [
    `${ACCESS_KEY_ID}: key '${target.accessKeyId}' has ${reasons.join(' and ')}: a key rotates only keys whose operations and scope are within its own, since it receives their new secret`,
  ];
}

function asWanted(operation: string): string {
  return operation === '*' ? "'*' (every operation)" : operation;
}
