import type { WarehouseConfig } from '@svc/contracts';
import { S3_UNREACHABLE_REASON, probeBucket, roleTrustProblem, type S3Settings } from '@svc/storage';
import { cannotReachText } from '@svc/contracts';
import { AUTHENTICATION_FAILED_REASON, UNREACHABLE_REASON, withinDeadline, type DialPolicy } from '@svc/engines';
import { UNSUPPORTED_CONNECTION_STRING, sourceEngineOf } from './engine';
import { probeDatabase, probeWarehouse } from './probe';
import { databaseAddressOf, warehouseAddressOf } from './target-address';

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
  /** What the probes' connections may reach (dial-guard.ts): the registry's, with the answers its host policy checked. */
  dial?: DialPolicy;
}

/** How the PostgreSQL-protocol probe words a database the server does not have (postgres-failure.ts, 3D000). */
const MISSING_DATABASE = /^database (".*" )?does not exist$/;

/** Where a bucket is reached: the operator's S3 endpoint or AWS, not an address the caller gave. */
const S3_ENDPOINT = 'the S3 endpoint';

export const REACHABILITY_FIELDS = {
  source: 'Source\\ConnectionString',
  staging: 'Staging\\ConnectionString',
  warehouse: 'Warehouse\\Url',
  warehouseCredentials: 'Warehouse\\Password',
  warehouseDatabase: 'Warehouse\\DatabaseName',
  bucket: 'Warehouse\\BucketName',
  role: 'Warehouse\\RoleName',
} as const;

interface Check {
  field: string;
  /** `host:port` the caller gave, for "cannot reach"; undefined when it cannot be read. */
  address: string | undefined;
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
  const { timeoutMs, dial } = options;
  const checks: Check[] = [];
  if (target.source) checks.push(databaseCheck(REACHABILITY_FIELDS.source, target.source, timeoutMs, dial));
  if (target.staging) checks.push(databaseCheck(REACHABILITY_FIELDS.staging, target.staging, timeoutMs, dial));
  const warehouse = target.warehouse;
  if (warehouse) {
    const warehouseAddress = warehouseAddressOf(warehouse.url);
    checks.push({
      field: REACHABILITY_FIELDS.warehouse,
      address: warehouseAddress,
      run: async () => {
        const reason = await probeWarehouse(warehouse, timeoutMs, dial);
        // A refused login or a missing database is said on the field to change, not on the address that answered.
        if (reason === AUTHENTICATION_FAILED_REASON) {
          return fieldMessage(REACHABILITY_FIELDS.warehouseCredentials, `cannot connect: ${reason}: the warehouse refused {Warehouse\\Username} with this {Warehouse\\Password}`);
        }
        if (reason !== null && MISSING_DATABASE.test(reason)) return fieldMessage(REACHABILITY_FIELDS.warehouseDatabase, `cannot connect: ${reason}`);
        return cannotConnect(REACHABILITY_FIELDS.warehouse, reason, warehouseAddress);
      },
    });
    checks.push({
      field: REACHABILITY_FIELDS.bucket,
      address: S3_ENDPOINT,
      run: async () => {
        // IAMRole: the bucket is reached as the customer's role, so the role's trust comes first, with its own field.
        const untrusted = warehouse.accessType === 'IAMRole' ? await roleTrustProblem(warehouse, options.s3) : null;
        if (untrusted !== null) return fieldMessage(REACHABILITY_FIELDS.role, untrusted);
        const reason = await probeBucket(warehouse, options.s3, timeoutMs);
        if (reason === null) return null;
        return fieldMessage(REACHABILITY_FIELDS.bucket, reason === S3_UNREACHABLE_REASON ? reason : `cannot write to bucket: ${reason}`);
      },
    });
  }
  const results = await Promise.all(checks.map((check) => runWithinDeadline(check, timeoutMs)));
  return results.filter((message): message is string => message !== null);
}

function databaseCheck(field: string, database: DatabaseTarget, timeoutMs: number, dial: DialPolicy | undefined): Check {
  const address = databaseAddressOf(database.connectionString);
  return {
    field,
    address,
    run: async () => {
      if (sourceEngineOf(database.connectionString) === null) return fieldMessage(field, UNSUPPORTED_CONNECTION_STRING);
      const reason = await probeDatabase(database.connectionString, { encrypt: database.encryptDataInTransit, timeoutMs, ...(dial && { dial }) });
      return cannotConnect(field, reason, address);
    },
  };
}

/** The probes enforce the deadline themselves; this is the backstop that keeps the overall promise. */
async function runWithinDeadline(check: Check, timeoutMs: number): Promise<string | null> {
  try {
    const outcome = await withinDeadline(check.run(), timeoutMs);
    return outcome.settled ? outcome.value : fieldMessage(check.field, cannotReachText(check.address));
  } catch {
    // Probes map every driver failure to a reason; anything else is a defect we must not leak details of.
    return fieldMessage(check.field, 'cannot connect: unexpected error');
  }
}

/**
 * The field message of a failed connection attempt. Every "cannot reach" class (refused, timed out, unknown host,
 * TLS, reset, no server of the engine) gets one text naming only the address the caller gave, so that the answer
 * does not tell which hosts and ports are open; what needs a speaking server (authentication, a missing database)
 * keeps its own words, which are the service's, never the server's.
 */
function cannotConnect(field: string, reason: string | null, address: string | undefined): string | null {
  if (reason === null) return null;
  return fieldMessage(field, reason === UNREACHABLE_REASON ? cannotReachText(address) : `cannot connect: ${reason}`);
}

function fieldMessage(field: string, text: string): string {
  return `{${field}}: ${text}`;
}
