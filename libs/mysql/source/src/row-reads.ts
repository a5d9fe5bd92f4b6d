import { Readable } from 'node:stream';
import type { TableDefinition } from '@svc/contracts';
import type { RowStream } from '@svc/engines';
import { quoteName, type MysqlColumnPlan } from '@svc/mysql/common';
import type { Connection as CoreConnection, FieldPacket, QueryOptions } from 'mysql2';
import type { PoolConnection } from 'mysql2/promise';

/** About this many bytes of CSV are handed on at once. */
const CHUNK_BYTES = 64 * 1024;


/** Every value as the server's text (the text protocol's bytes as UTF-8): no JavaScript number or Date holds one. */
export const AS_TEXT: QueryOptions['typeCast'] = (field) => field.string('utf8');

/** The select list of the definition's columns, each rendered as text by its plan. */
export function selectList(definition: TableDefinition, plans: ReadonlyMap<string, MysqlColumnPlan>): string {
  return definition.columns.map((column) => planOf(plans, column.name).select(quoteName(column.name))).join(', ');
}

export function planOf(plans: ReadonlyMap<string, MysqlColumnPlan>, name: string): MysqlColumnPlan {
  const plan = plans.get(name);
  if (plan === undefined) throw new Error(`no read plan for column ${name}`);
  return plan;
}

/** The row format's fields of a row the select list read. */
export function rowFields(definition: TableDefinition, plans: ReadonlyMap<string, MysqlColumnPlan>, raw: readonly (string | null)[]): (string | null)[] {
  return definition.columns.map((column, index) => {
    const value = raw[index];
    return value === null || value === undefined ? null : planOf(plans, column.name).text(value);
  });
}

/**
 * Streams CSV made from `records` (an async source of records already written), ending the transaction and giving the
 * connection back (`release(true)`) when read to the end. Ended any other way — failed, or destroyed early, even before its first read
 * (an abandoned read: the generator's body then never runs, so its own cleanup could not be trusted) — the connection is
 * destroyed with it (`release(false)`), which ends the server's statement and transaction: a read cannot be cancelled otherwise.
 */
export function csvStream(connection: PoolConnection, records: AsyncIterable<string>, release: (whole: boolean) => void): RowStream {
  let rowCount = 0;
  let completed = false;
  let released = false;
  const giveBack = (whole: boolean) => {
    if (released) return;
    released = true;
    release(whole);
  };
  async function* chunks(): AsyncGenerator<Buffer> {
    let pending = '';
    for await (const record of records) {
      rowCount += 1;
      pending += record;
      if (pending.length >= CHUNK_BYTES) {
        yield Buffer.from(pending, 'utf8');
        pending = '';
      }
    }
    if (pending !== '') yield Buffer.from(pending, 'utf8');
    await connection.query('COMMIT');
    completed = true;
  }
  const rows = Readable.from(chunks(), { objectMode: false });
  const finished = new Promise<{ rowCount: number }>((resolve, reject) => {
    rows.once('end', () => {
      giveBack(completed);
      if (completed) resolve({ rowCount });
      else reject(new Error('the read ended before its transaction did'));
    });
    rows.once('error', (error) => {
      giveBack(false);
      reject(error);
    });
    rows.once('close', () => {
      if (released) return;
      giveBack(false);
      reject(new Error('the read was abandoned before its end'));
    });
  });
  finished.catch(() => undefined);
  return { rows, finished };
}

/** The rows of a query, as arrays of the server's texts, read as they arrive. */
export async function* queryRows(connection: PoolConnection, sql: string, values: readonly unknown[] = []): AsyncGenerator<(string | null)[]> {
  const stream = coreOf(connection).query({ sql, values: [...values], rowsAsArray: true, typeCast: AS_TEXT }).stream({ highWaterMark: 256 });
  for await (const row of stream as AsyncIterable<(string | null)[]>) yield row;
}

export type { FieldPacket };

/** The callback connection under a promise one (mysql2's promise wrapper keeps it as `connection`; its typings say otherwise). */
export function coreOf(connection: PoolConnection): CoreConnection {
  return connection.connection as unknown as CoreConnection;
}
