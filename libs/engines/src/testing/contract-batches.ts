import { Portable, type BatchDescriptor, type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import type { CsvChunks } from '../batch';

/** A field of the pipeline's rows as text: null is SQL NULL, '' the empty string. */
export type Field = string | null;
export type Row = readonly Field[];

/** What a contract table's column holds: its key (a whole number) or text. */
export type ContractColumnKind = 'integer' | 'text';

/** How an engine's source spells the two column kinds the contract uses (SQL Server staging reads `sourceType`, PostgreSQL `portableType`). */
export type ContractColumnTypes = Record<ContractColumnKind, Pick<ColumnDefinition, 'sourceType' | 'portableType'>>;

/** The types every engine here reads the same way; an engine whose source spells them otherwise declares its own. */
export const PORTABLE_COLUMN_TYPES: ContractColumnTypes = {
  integer: { sourceType: 'integer', portableType: Portable.integer() },
  text: { sourceType: 'text', portableType: Portable.text() },
};

export const CONTRACT_REPLICATION_ID = 'r-contract';

/** A keyed table: `key` first, then text columns. */
export function contractTable(table: TableRef, types: ContractColumnTypes, key: string, textColumns: readonly string[]): TableDefinition {
  const column = (name: string, kind: ContractColumnKind): ColumnDefinition => ({ name, ...types[kind], nullable: kind !== 'integer' });
  return { table, columns: [column(key, 'integer'), ...textColumns.map((name) => column(name, 'text'))], primaryKey: [key], estimatedRows: 0 };
}

export function withColumn(definition: TableDefinition, types: ContractColumnTypes, name: string): TableDefinition {
  return { ...definition, columns: [...definition.columns, { name, ...types.text, nullable: true }] };
}

const tableId = (definition: TableDefinition) => `${definition.table.schema}.${definition.table.name}`;

/** Another replication of the same source into the same staging database and warehouse (docs/PIPELINE.md, "Staging tables shared by replications"). */
export const OTHER_REPLICATION_ID = 'r-other';

export function seedPart(definition: TableDefinition, seedId: string, part: number, final: boolean, epoch = 1, replicationId = CONTRACT_REPLICATION_ID): BatchDescriptor {
  return {
    batchId: `${replicationId}/${tableId(definition)}/seed/${seedId}/${part}`,
    replicationId,
    epoch,
    definition,
    body: { kind: 'seed', seedId, part, final, startVersion: '100' },
  };
}

/** Chunk `index` of a chunked seed (any order; none final). */
export function seedChunk(definition: TableDefinition, seedId: string, index: number, epoch = 1, replicationId = CONTRACT_REPLICATION_ID): BatchDescriptor {
  const part = seedPart(definition, seedId, index, false, epoch, replicationId);
  return { ...part, body: { kind: 'seed', seedId, part: index, final: false, chunked: true, startVersion: '100' } };
}

export function changes(definition: TableDefinition, fromVersion: number, toVersion: number, epoch = 1, replicationId = CONTRACT_REPLICATION_ID): BatchDescriptor {
  return {
    batchId: `${replicationId}/${tableId(definition)}/changes/${fromVersion}-${toVersion}`,
    replicationId,
    epoch,
    definition,
    body: { kind: 'changes', fromVersion: String(fromVersion), toVersion: String(toVersion) },
  };
}

/**
 * Rows as the pipeline carries them (the row interchange format, docs/ROW-FORMAT.md): NULL an unquoted empty field,
 * every other value quoted, so '' is `""`. Written here from the format's definition, not by any engine's writer.
 */
export function pipelineCsv(rows: readonly Row[]): string {
  return rows.map((row) => `${row.map((field) => (field === null ? '' : `"${field.replace(/"/g, '""')}"`)).join(',')}\n`).join('');
}

/** Bytes in chunks of 5, so that chunk boundaries fall inside rows, quotes and multi-byte characters. */
export function chunked(text: string): CsvChunks {
  const bytes = Buffer.from(text, 'utf8');
  return (async function* () {
    for (let at = 0; at < bytes.length; at += 5) yield bytes.subarray(at, at + 5);
  })();
}

/** Chunks that record whether anyone read them to the end. */
export class WatchedRows implements CsvChunks {
  started = false;
  finished = false;

  constructor(private readonly text: string) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    this.started = true;
    yield* chunked(this.text);
    this.finished = true;
  }
}

/** Rows nobody may read (a stale batch's): reading them fails, and so does whatever read them. */
export function unreadableRows(): CsvChunks {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Buffer> {
      throw new Error("a stale batch's rows were read");
    },
  };
}

/** Rows in a stable order (by their text), so engines that read back in another order compare equal. */
export function sortedRows(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0));
}

/** What an engine does with names, declared by its factory. */
export interface ContractNaming {
  /** The longest name the engine keeps, in UTF-8 bytes (PostgreSQL: 63) or in characters (SQL Server: 128). */
  longest: { bytes: number; characters?: undefined } | { characters: number; bytes?: undefined };
  /** False where names differing in case only are one name (Redshift folds them; a case-insensitive SQL Server collation compares them equal). */
  caseSensitive: boolean;
  /** The name as the engine's catalog holds it (Redshift folds ASCII letters to lowercase); identity when absent. */
  stored?: (name: string) => string;
}

/**
 * Names a careless quoting breaks: both quote characters, a closing bracket, blanks, mixed case, letters beyond ASCII,
 * and one as long as the engine keeps (`longest`: the engine's limit in UTF-8 bytes or characters).
 */
export function hostileNames(naming: ContractNaming): { schema: string; table: string; columns: string[] } {
  const { longest } = naming;
  const limit = longest.bytes ?? longest.characters ?? 128;
  // 'é' is two bytes in UTF-8: a byte limit is reached without splitting it when the rest is ASCII.
  const long = `Lëng_${'x'.repeat(limit - (longest.bytes === undefined ? 5 : 6) - 1)}Z`;
  return {
    schema: 'Sch "ema] ü',
    table: `Tab'le "q" [b]`,
    // Two names that differ in case only are two columns where names keep their case.
    columns: ['Mixed Case', 'quo"te', "apo'strophe", 'br]ack[et', 'ünïcödé ✓', ...(naming.caseSensitive ? ['mixed case'] : []), long],
  };
}

/** How many UTF-8 bytes and characters a name has (a check that the long name is as long as the engine's limit). */
export function nameSize(name: string): { bytes: number; characters: number } {
  return { bytes: Buffer.byteLength(name, 'utf8'), characters: [...name].length };
}
