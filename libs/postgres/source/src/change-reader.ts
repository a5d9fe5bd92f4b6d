import { hasPrimaryKey, type TableDefinition } from '@svc/contracts';
import {
  CaptureFailedError,
  type ChangeRead,
  ChangesPurgedError,
  PrimaryKeyRequiredError,
  type ReadOptions,
  SourceIncarnationChangedError,
  SourceVersionsRewoundError,
  TableNotTrackedError,
  incarnationMoved,
} from '@svc/engines';
import type { Pool, PoolClient } from 'pg';
import { openTransaction, rollbackAndRelease, streamCopyOut } from '@svc/postgres/common';
import { assertDefinitionCurrent } from './definition-check';
import { readIncarnation } from './incarnation';
import { trackedTable, type TrackedTable } from './registry';
import { relayLog, type RelayOptions } from './log/log-relay';
import { LOG_CAPTURE_INTACT_SQL, RELAYED_HORIZON_SQL } from './log/log-sql';
import { READ_TRANSACTION_SQL, SNAPSHOT_VERSION_SQL, changeWindowEndSql, lockTrackedTableSql, netChangesCopySql } from './read-sql';
import { CAPTURE_FAILED_SQL, CAPTURE_FAILURES_EXISTS_SQL, CAPTURE_INTACT_SQL, CAPTURE_TRIGGERS, captureFunctionSignature } from './tracking-sql';
import { inChangeSchema, qualifiedName, trackingNames } from './identifiers';
import { parseVersion } from './versions';

/**
 * Net changes with version in [fromVersion, toVersion), read in one REPEATABLE READ snapshot: toVersion is
 * the snapshot's xmin (every transaction below it has ended), lowered to a transaction boundary when more
 * than `limit` records lie in between. toVersion advances to the snapshot's xmin even when nothing changed.
 * A snapshot's xmin never goes backwards on one server, and every watermark is such an xmin; one below
 * fromVersion means the cluster's transaction ids restarted lower (a restore into another cluster, a
 * failover to a replica that was behind), so the changes in between are unknown and the table is reseeded. A restore
 * whose ids have already passed the watermark again is seen by the incarnation stored with it (incarnation.ts).
 */
export async function readChanges(
  pool: Pool,
  definition: TableDefinition,
  fromVersion: string,
  limit: number,
  options: ReadOptions = {},
  relay: RelayOptions = {},
): Promise<ChangeRead> {
  const { table } = definition;
  if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(table);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`the change record limit must be a positive integer, not ${limit}`);
  const from = parseVersion(fromVersion, 'fromVersion');
  const sourceIncarnation = await readIncarnation(pool);
  if (incarnationMoved(options.incarnation, sourceIncarnation)) throw new SourceIncarnationChangedError(table, options.incarnation ?? '', sourceIncarnation ?? '');
  // A log-captured table's records are in its change table once the log was relayed up to now.
  if ((await trackedTable(pool, table))?.capture === 'log') await relayLog(pool, relay);
  const client = await openTransaction(pool, READ_TRANSACTION_SQL);
  try {
    await client.query(lockTrackedTableSql(definition));
    const snapshotVersion = parseVersion(await singleText(client.query<{ version: string }>(SNAPSHOT_VERSION_SQL), 'version'), 'snapshot xmin');
    const tracked = await trackedTable(client, table);
    if (tracked === null) throw new TableNotTrackedError(table);
    // Before the capture's objects: a capture that failed (and was taken down) says why.
    const failure = await captureFailure(client, definition, from);
    if (failure !== null) throw new CaptureFailedError(table, failure);
    if (!(await captureIntact(client, definition, tracked))) throw new TableNotTrackedError(table);
    if (from < parseVersion(tracked.minValidVersion, 'min_valid_version')) throw new ChangesPurgedError(table, fromVersion, tracked.minValidVersion);
    if (snapshotVersion < from) throw new SourceVersionsRewoundError(table, fromVersion, snapshotVersion.toString());
    await assertDefinitionCurrent(client, definition, options);
    // The log's records stop where its relay stopped; one that has not yet reached the watermark (a seed that read a
    // newer snapshot) reads nothing.
    const horizon = tracked.capture === 'log' ? minVersion(snapshotVersion, await relayedHorizon(client, from)) : snapshotVersion;
    const to = from >= horizon ? from : await windowEnd(client, definition, from, horizon, limit);
    return { toVersion: to.toString(), limited: to < horizon, sourceIncarnation, ...streamCopyOut(client, netChangesCopySql(definition, from, to)) };
  } catch (error) {
    await rollbackAndRelease(client);
    throw error;
  }
}

/** Why capture of the table's writes failed at or after `from` (the latest failure); null when it has not. */
async function captureFailure(client: PoolClient, definition: TableDefinition, from: bigint): Promise<string | null> {
  const exists = await client.query<{ exists: boolean }>(CAPTURE_FAILURES_EXISTS_SQL);
  if (exists.rows[0]?.exists !== true) return null;
  const result = await client.query<{ reason: string }>(CAPTURE_FAILED_SQL, [definition.table.schema, definition.table.name, from.toString()]);
  return result.rows[0]?.reason ?? null;
}

/** Where the relay of the log stands (RELAYED_HORIZON_SQL); `from` when it has not relayed yet. */
async function relayedHorizon(client: PoolClient, from: bigint): Promise<bigint> {
  const row = (await client.query<{ horizon: string }>(RELAYED_HORIZON_SQL)).rows[0];
  return row === undefined ? from : parseVersion(row.horizon, 'relayed horizon');
}

function minVersion(left: bigint, right: bigint): bigint {
  return left < right ? left : right;
}

/**
 * Whether the table's capture is all in place: its change table and capture triggers (CAPTURE_INTACT_SQL), or its
 * publication under the relation it was registered as (LOG_CAPTURE_INTACT_SQL).
 */
async function captureIntact(client: PoolClient, definition: TableDefinition, tracked: TrackedTable): Promise<boolean> {
  const names = trackingNames(definition.table);
  if (tracked.capture === 'log') {
    const log = await client.query<{ intact: boolean }>(LOG_CAPTURE_INTACT_SQL, [qualifiedName(definition.table), tracked.relid, inChangeSchema(names.changeTable)]);
    return log.rows[0]?.intact === true;
  }
  const result = await client.query<{ intact: boolean }>(CAPTURE_INTACT_SQL, [
    inChangeSchema(names.changeTable),
    qualifiedName(definition.table),
    captureFunctionSignature(names),
    [...CAPTURE_TRIGGERS],
  ]);
  return result.rows[0]?.intact === true;
}

async function windowEnd(client: PoolClient, definition: TableDefinition, from: bigint, horizon: bigint, limit: number): Promise<bigint> {
  const result = client.query<{ to_version: string }>(changeWindowEndSql(definition), [from.toString(), horizon.toString(), limit]);
  return parseVersion(await singleText(result, 'to_version'), 'window end');
}

async function singleText<K extends string>(result: Promise<{ rows: Array<Record<K, string>> }>, column: K): Promise<string> {
  const row = (await result).rows[0];
  if (row === undefined) throw new Error(`expected one row with ${column}`);
  return row[column];
}
