import type { AlertRecord, ReplicationDescription, TableStatus } from '@svc/contracts';

/**
 * What the watch shows of one DescribeWarehouseReplication answer. Read defensively from the JSON body: the
 * encoder leaves null fields out, and phase and status stay plain strings so that a value added by a newer
 * server is shown rather than refused.
 */
export interface TableSnapshot extends Pick<TableStatus, 'name' | 'rowsSeeded' | 'rowsEstimated' | 'lagSeconds' | 'lastError'> {
  phase: string;
  inFlightSeconds: number | null;
  /** A chunked seed under way: its chunks loaded of all (absent without one). */
  seedChunks?: { loaded: number; total: number } | null;
}

export type AlertSnapshot = Pick<AlertRecord, 'message' | 'createdAt'> & { kind: string; state: string };

export interface ReplicationSnapshot extends Pick<ReplicationDescription, 'replicationId' | 'replicationName' | 'lastError'> {
  status: string;
  tables: TableSnapshot[];
  alerts: AlertSnapshot[];
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function count(value: unknown): number {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : 0;
}

function optionalSeconds(value: unknown): number | null {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

function tableSnapshot(value: unknown): TableSnapshot | undefined {
  if (!isObject(value)) return undefined;
  return {
    name: text(value['name']) ?? '(unnamed)',
    phase: text(value['phase']) ?? 'Unknown',
    rowsSeeded: count(value['rowsSeeded']),
    rowsEstimated: count(value['rowsEstimated']),
    lagSeconds: optionalSeconds(value['lagSeconds']),
    lastError: text(value['lastError']),
    inFlightSeconds: optionalSeconds(value['inFlightSeconds']),
    ...(typeof value['seedChunks'] === 'number' && { seedChunks: { loaded: count(value['seedChunksLoaded']), total: count(value['seedChunks']) } }),
  };
}

function alertSnapshot(value: unknown): AlertSnapshot | undefined {
  if (!isObject(value)) return undefined;
  // A registry before alert states (issue 40) sent none: every alert was active then.
  return { kind: text(value['kind']) ?? 'Alert', message: text(value['message']) ?? '', createdAt: text(value['createdAt']) ?? '', state: text(value['state']) ?? 'Active' };
}

function listOf<T>(value: unknown, read: (item: unknown) => T | undefined): T[] {
  return Array.isArray(value) ? value.map(read).filter((item): item is T => item !== undefined) : [];
}

/** The snapshot in a JSON Describe answer, or undefined when the body is not one. */
export function parseReplicationSnapshot(body: string): ReplicationSnapshot | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || typeof parsed['status'] !== 'string') return undefined;
  return {
    replicationId: text(parsed['replicationId']) ?? '',
    replicationName: text(parsed['replicationName']) ?? '',
    status: parsed['status'],
    lastError: text(parsed['lastError']),
    tables: listOf(parsed['tables'], tableSnapshot),
    alerts: listOf(parsed['alerts'], alertSnapshot),
  };
}
