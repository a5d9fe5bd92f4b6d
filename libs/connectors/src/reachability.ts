import type { WarehouseConfig } from '@svc/contracts';
import { probeBucket, roleTrustProblem, type S3Settings } from '@svc/storage';
import { timedOutReason, withinDeadline } from '@svc/engines';
import { UNSUPPORTED_CONNECTION_STRING, sourceEngineOf } from './engine';
import { probeDatabase, probeWarehouse } from './probe';

export interface DatabaseTarget {
  connectionString: string;
  encryptDataInTransit: boolean;
}

/** What to check; a partial target lets Alter re-check only what changed. */
export interface ReachabilityTarget {
  source?: DatabaseTarget;
  staging?: DatabaseTarget;
  warehouse?: WarehouseConfig;
}

export interface ReachabilityOptions {
  /** One deadline for all probes together (DESIGN §4: 10 s). */
  timeoutMs: number;
  s3: S3Settings;
}

export const REACHABILITY_FIELDS = {
  source: 'Source\\ConnectionString',
  staging: 'Staging\\ConnectionString',
  warehouse: 'Warehouse\\Url',
  bucket: 'Warehouse\\BucketName',
  role: 'Warehouse\\RoleName',
} as const;

interface Check {
  field: string;
  /** The field message on failure, or null. */
  run: () => Promise<string | null>;
}

/**
 * Runs every probe in parallel under one deadline and returns field messages in seed order:
 * {Source\ConnectionString}, {Staging\ConnectionString}, {Warehouse\Url}, {Warehouse\BucketName} (or
 * {Warehouse\RoleName} when an IAMRole cannot be assumed).
 * An empty array means everything was reachable.
 */
export async function checkReachability(target: ReachabilityTarget, options: ReachabilityOptions): Promise<string[]> {
  const { timeoutMs } = options;
  const checks: Check[] = [];
  if (target.source) checks.push(databaseCheck(REACHABILITY_FIELDS.source, target.source, timeoutMs));
  if (target.staging) checks.push(databaseCheck(REACHABILITY_FIELDS.staging, target.staging, timeoutMs));
  const warehouse = target.warehouse;
  if (warehouse) {
    checks.push({
      field: REACHABILITY_FIELDS.warehouse,
      run: async () => cannotConnect(REACHABILITY_FIELDS.warehouse, await probeWarehouse(warehouse, timeoutMs)),
    });
    checks.push({
      field: REACHABILITY_FIELDS.bucket,
      run: async () => {
        // IAMRole: the bucket is reached as the customer's role, so the role's trust comes first, with its own field.
        const untrusted = warehouse.accessType === 'IAMRole' ? await roleTrustProblem(warehouse, options.s3) : null;
        if (untrusted !== null) return fieldMessage(REACHABILITY_FIELDS.role, untrusted);
        const reason = await probeBucket(warehouse, options.s3, timeoutMs);
        return reason === null ? null : fieldMessage(REACHABILITY_FIELDS.bucket, `cannot write to bucket: ${reason}`);
      },
    });
  }
  const results = await Promise.all(checks.map((check) => runWithinDeadline(check, timeoutMs)));
  return results.filter((message): message is string => message !== null);
}

function databaseCheck(field: string, database: DatabaseTarget, timeoutMs: number): Check {
  return {
    field,
    run: async () => {
      if (sourceEngineOf(database.connectionString) === null) return fieldMessage(field, UNSUPPORTED_CONNECTION_STRING);
      const reason = await probeDatabase(database.connectionString, { encrypt: database.encryptDataInTransit, timeoutMs });
      return cannotConnect(field, reason);
    },
  };
}

/** The probes enforce the deadline themselves; this is the backstop that keeps the overall promise. */
async function runWithinDeadline(check: Check, timeoutMs: number): Promise<string | null> {
  try {
    const outcome = await withinDeadline(check.run(), timeoutMs);
    return outcome.settled ? outcome.value : cannotConnect(check.field, timedOutReason(timeoutMs));
  } catch {
    // Probes map every driver failure to a reason; anything else is a defect we must not leak details of.
    return cannotConnect(check.field, 'unexpected error');
  }
}

function cannotConnect(field: string, reason: string | null): string | null {
  return reason === null ? null : fieldMessage(field, `cannot connect: ${reason}`);
}

function fieldMessage(field: string, text: string): string {
  return `{${field}}: ${text}`;
}
