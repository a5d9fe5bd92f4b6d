import { Portable, type TableDefinition } from '@svc/contracts';
import { qualifiedName, quoteName } from '@svc/mysql/common';
import {
  CONTROL_TABLES_SQL,
  CURRENT_SEED_SQL,
  RAISE_FENCE_SQL,
  TABLE_LOCK_SHARED_SQL,
  TABLE_LOCK_SQL,
  addColumnsSql,
  createBatchTableSql,
  createTableSql,
  deleteChangedKeysSql,
  emptyTableSql,
  insertChangedRowsSql,
  insertValuesSql,
  widenColumnsSql,
} from './staging-sql';

const COLLATION = 'utf8mb4_nopad_bin';

/** A table with hostile names and one column of each kind the declarations tell apart. */
const orders: TableDefinition = {
  table: { schema: 'Sch `ema`', name: "Tab'le" },
  columns: [
    { name: 'id', sourceType: 'bigint', portableType: Portable.bigint(), nullable: false },
    { name: 'code', sourceType: 'varchar(20)', portableType: Portable.varchar(20), nullable: false },
    { name: 'note', sourceType: 'varchar(200)', portableType: Portable.varchar(200), nullable: true },
    { name: 'body', sourceType: 'longtext', portableType: Portable.text(), nullable: true },
    { name: 'amount', sourceType: 'decimal(12,2)', portableType: Portable.decimal(12, 2), nullable: true },
    { name: 'placed', sourceType: 'timestamp(3)', portableType: Portable.timestamp(3, true), nullable: true },
    { name: 'raw', sourceType: 'varbinary(8)', portableType: Portable.binary(8), nullable: true },
    { name: 'done', sourceType: 'bit(1)', portableType: Portable.boolean(), nullable: true },
  ],
  primaryKey: ['id', 'code'],
  estimatedRows: 0,
};

describe('MySQL staging SQL (snapshots for review)', () => {
  it('quotes names with backticks, a backtick doubled', () => {
    expect(quoteName('a`b')).toBe('`a``b`');
    expect(qualifiedName(orders.table)).toBe("`Sch ``ema```.`Tab'le`");
  });

  it('control tables', () => {
    expect(CONTROL_TABLES_SQL).toMatchSnapshot();
  });

  it('locks, fences and seeds', () => {
    expect({ TABLE_LOCK_SQL, TABLE_LOCK_SHARED_SQL, RAISE_FENCE_SQL, CURRENT_SEED_SQL }).toMatchSnapshot();
  });

  it('creates a staging table: keys declared whole, other text and bytes LONGTEXT and LONGBLOB, each with its logical type', () => {
    expect(createTableSql(orders, COLLATION)).toMatchSnapshot();
  });

  it('adds columns nullable and widens them restating declaration, nullability and comment', () => {
    expect(addColumnsSql(orders.table, [{ name: 'extra', sourceType: 'varchar(10)', portableType: Portable.varchar(10), nullable: false }], COLLATION)).toMatchSnapshot();
    expect(
      widenColumnsSql(
        orders.table,
        [
          { name: 'code', to: 'varchar(40)', key: true, nullable: false },
          { name: 'note', to: 'varchar(400)', key: false, nullable: true },
        ],
        COLLATION,
      ),
    ).toMatchSnapshot();
  });

  it('loads a batch through a temporary table and merges it by key', () => {
    expect(createBatchTableSql(orders, COLLATION)).toMatchSnapshot();
    expect(insertValuesSql('`svc_staging`.`svc_batch_changes`', ['svc_op', 'id'], 3)).toBe('INSERT INTO `svc_staging`.`svc_batch_changes` (`svc_op`, `id`) VALUES (?, ?), (?, ?), (?, ?)');
    expect(deleteChangedKeysSql(orders)).toMatchSnapshot();
    expect(insertChangedRowsSql(orders)).toMatchSnapshot();
    expect(emptyTableSql(orders.table)).toBe("DELETE FROM `Sch ``ema```.`Tab'le`");
  });

  it('refuses a table with a column named as the operation column', () => {
    const clash = { ...orders, columns: [...orders.columns, { name: 'svc_op', sourceType: 'text', portableType: Portable.text(), nullable: true }] };
    expect(() => createBatchTableSql(clash, COLLATION)).toThrow(/svc_op/);
  });
});
