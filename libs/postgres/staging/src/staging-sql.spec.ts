import type { TableDefinition } from '@svc/contracts';
import { UnsupportedPostgresTypeError, checkedTypeText, portableTypeOf, quoteIdent } from './identifiers';
import {
  CONTROL_SCHEMA_SQL,
  FENCE_STALE_SQL,
  NAMED_BY_EARLIER_VERSION_SQL,
  OWNED_TABLE_SQL,
  RAISE_FENCE_SQL,
  RECORD_OWNED_TABLE_SQL,
  addColumnsSql,
  copyChangeRowsSql,
  copySeedRowsSql,
  createChangesTableSql,
  createTableSql,
  deleteChangedKeysSql,
  insertChangedRowsSql,
  truncateSql,
} from './staging-sql';
import { portableTypeOfPostgres } from '@svc/postgres/common';

const orders: TableDefinition = {
  table: { schema: 'sales', name: 'Order "Lines"' },
  columns: [
    { name: 'order_id', sourceType: 'bigint', portableType: portableTypeOfPostgres('bigint'), nullable: false },
    { name: 'line', sourceType: 'integer', portableType: portableTypeOfPostgres('integer'), nullable: false },
    { name: 'amount', sourceType: 'numeric(38,10)', portableType: portableTypeOfPostgres('numeric(38,10)'), nullable: false },
    { name: 'mood', sourceType: 'sales.mood', portableType: portableTypeOfPostgres('text'), nullable: true },
    { name: 'at', sourceType: 'timestamp(3) with time zone', portableType: portableTypeOfPostgres('timestamp(3) with time zone'), nullable: true },
  ],
  primaryKey: ['order_id', 'line'],
  estimatedRows: 0,
};

const events: TableDefinition = {
  table: { schema: 'public', name: 'events' },
  columns: [{ name: 'payload', sourceType: 'jsonb', portableType: portableTypeOfPostgres('jsonb'), nullable: true }],
  primaryKey: [],
  estimatedRows: 0,
};

describe('staging SQL', () => {
  it('control schema', () => {
    expect(CONTROL_SCHEMA_SQL.join(';\n\n')).toMatchSnapshot();
  });

  it('work epoch fence: raise (no row when stale) and check', () => {
    expect([RAISE_FENCE_SQL, FENCE_STALE_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('tables the service created: read, record, and what earlier versions named', () => {
    expect([OWNED_TABLE_SQL, RECORD_OWNED_TABLE_SQL, NAMED_BY_EARLIER_VERSION_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('create table with a composite primary key and NOT NULL as in the source', () => {
    expect(createTableSql(orders)).toMatchSnapshot();
  });

  it('create table without a primary key', () => {
    expect(createTableSql(events)).toMatchSnapshot();
  });

  it('add columns, nullable', () => {
    expect(addColumnsSql(orders.table, orders.columns.slice(3))).toMatchSnapshot();
  });

  it('seed part', () => {
    expect([truncateSql(orders.table), copySeedRowsSql(orders)].join(';\n')).toMatchSnapshot();
  });

  it('change batch', () => {
    expect(
      [createChangesTableSql(orders), copyChangeRowsSql(orders), deleteChangedKeysSql(orders), insertChangedRowsSql(orders)].join(';\n\n'),
    ).toMatchSnapshot();
  });

  it('refuses a table whose column is named like the change operation column', () => {
    const clash = { ...orders, columns: [...orders.columns, { name: 'svc_op', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true }] };
    expect(() => createChangesTableSql(clash)).toThrow(/svc_op/);
  });
});

describe('identifiers and types', () => {
  it('quotes identifiers, doubling inner quotes', () => {
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(quoteIdent('Mixed Case')).toBe('"Mixed Case"');
  });

  it.each([
    'integer',
    'numeric(38,10)',
    'character varying(20)',
    'timestamp with time zone',
    'timestamp(3) without time zone',
    'interval day to second(0)',
    'bit varying(5)',
    '"char"',
    'text[]',
    'integer[][]',
    'double precision',
  ])('declares the built-in type %s as the source has it (arrays of any dimensions as one)', (type) => {
    expect(portableTypeOf({ name: 'c', portableType: portableTypeOfPostgres(type) })).toBe(type.replace('[][]', '[]'));
  });

  it.each(['integer; drop table x', 'text)--', 'public.mood', '"mood"', '', 'numeric(1,2,3)', 'integer default pg_sleep(86400)', 'integer generated always as identity'])(
    'refuses %j',
    (type) => {
      expect(() => checkedTypeText('c', type)).toThrow(UnsupportedPostgresTypeError);
    },
  );

  // A definition whose native type a hostile source catalog wrote: no DDL is written, whichever statement would splice it.
  it.each([
    ['CREATE TABLE', createTableSql],
    ['ADD COLUMN', (definition: TableDefinition) => addColumnsSql(definition.table, definition.columns)],
    ['the batch table', createChangesTableSql],
  ])('%s refuses a native type that is no built-in type, naming the column', (_name, sql) => {
    const hostile: TableDefinition = {
      ...events,
      columns: [{ name: 'id', sourceType: 'integer', portableType: { kind: 'native', engine: 'postgres', type: 'integer default pg_sleep(86400)' }, nullable: false }],
    };
    expect(() => sql(hostile)).toThrow(/^column "id" has a type PostgreSQL staging and warehouses do not declare/);
  });
});
