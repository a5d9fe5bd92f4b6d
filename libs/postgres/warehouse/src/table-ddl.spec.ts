import type { TableDefinition } from '@svc/contracts';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';
import { UnsupportedPostgresTypeError } from '@svc/postgres/common';
import { checksumTable } from './checksum-table';
import { createLoadTableSql } from './merge-sql';
import { addColumnSql, createShadowSql, createTargetSql, shadowColumns } from './table-ddl';
import { tableLayout, type TableLayout } from './table-layout';

/** A definition whose native type a hostile source catalog wrote (a format_type of its own choosing). */
const hostile: TableDefinition = {
  table: { schema: 'public', name: 'orders' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: { kind: 'integer', bytes: 4 }, nullable: false },
    { name: 'address', sourceType: 'inet', portableType: { kind: 'native', engine: 'postgres', type: 'inet default pg_sleep(86400)' }, nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};

const layout = (scdType: 'Type1' | 'Type2'): TableLayout => tableLayout(hostile, { schema: 'dwh', scdType, addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);

describe('warehouse DDL from a hostile definition', () => {
  it.each<[string, () => unknown]>([
    ['the Type1 target', () => createTargetSql(layout('Type1'))],
    ['the Type2 target', () => createTargetSql(layout('Type2'))],
    ['the seed shadow', () => createShadowSql(layout('Type1'))],
    ['an added column', () => shadowColumns(layout('Type1')).map((column) => addColumnSql('"dwh"."orders"', column))],
    ['the load table', () => createLoadTableSql(layout('Type1'))],
    ['the checksum read', () => checksumTable(layout('Type1'))],
  ])('%s refuses a native type that is no built-in type, naming the column', (_name, sql) => {
    expect(sql).toThrow(UnsupportedPostgresTypeError);
    expect(sql).toThrow(/^column "address" has a type PostgreSQL staging and warehouses do not declare/);
  });

  it('declares the same table when the native type is a built-in one', () => {
    const inet: TableDefinition = { ...hostile, columns: hostile.columns.map((column) => (column.name === 'address' ? { ...column, portableType: { kind: 'native', engine: 'postgres', type: 'inet' } } : column)) };
    const [create] = createTargetSql(tableLayout(inet, { schema: 'dwh', scdType: 'Type1', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS));
    expect(create).toBe('CREATE TABLE "dwh"."orders" (\n  "id" integer NOT NULL,\n  "address" inet,\n  PRIMARY KEY ("id")\n)');
  });
});
