import { Portable, type ColumnDefinition, type PortableType } from '@svc/contracts';
import { columnTypeRelation } from '@svc/engines';
import { StagingKeyError, checkedKeyDeclarations, columnDeclaration, logicalType, logicalTypeOfColumn, typeComment } from './staging-types';

const COLLATION = 'utf8mb4_nopad_bin';

const PORTABLE_TYPES: [PortableType, string, string, string][] = [
  // portable type, logical type, declared as a value, declared as a key
  [Portable.smallint(), 'smallint', 'SMALLINT', 'SMALLINT'],
  [Portable.integer(), 'int', 'INT', 'INT'],
  [Portable.bigint(), 'bigint', 'BIGINT', 'BIGINT'],
  [Portable.decimal(20, 0), 'decimal(20,0)', 'DECIMAL(20,0)', 'DECIMAL(20,0)'],
  [Portable.decimal(65, 30), 'decimal(65,30)', 'DECIMAL(65,30)', 'DECIMAL(65,30)'],
  [Portable.decimal(66, 2), 'longtext', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.decimal(40, 31), 'longtext', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.decimal(5, -2), 'longtext', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.decimal(), 'longtext', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.float(4), 'float', 'FLOAT', 'FLOAT'],
  [Portable.float(8), 'double', 'DOUBLE', 'DOUBLE'],
  [Portable.varchar(40), 'varchar(40)', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, `VARCHAR(40) CHARACTER SET utf8mb4 COLLATE ${COLLATION}`],
  [Portable.char(4), 'char(4)', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, `VARCHAR(4) CHARACTER SET utf8mb4 COLLATE ${COLLATION}`],
  [{ kind: 'text', length: 255, unit: 'bytes', fixed: false }, 'varchar(255)', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, `VARCHAR(255) CHARACTER SET utf8mb4 COLLATE ${COLLATION}`],
  [Portable.text(), 'longtext', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.binary(16), 'varbinary(16)', 'LONGBLOB', 'VARBINARY(16)'],
  [Portable.binary(4, true), 'binary(4)', 'LONGBLOB', 'VARBINARY(4)'],
  [Portable.binary(), 'longblob', 'LONGBLOB', '-'],
  [Portable.boolean(), 'tinyint(1)', 'BOOLEAN', 'BOOLEAN'],
  [Portable.date(), 'date', 'DATE', 'DATE'],
  [Portable.time(3), 'time(3)', 'TIME(3)', 'TIME(3)'],
  [Portable.time(9), 'time(6)', 'TIME(6)', 'TIME(6)'],
  [Portable.time(6, true), 'time(6) with time zone', 'VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin', 'VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin'],
  [Portable.timestamp(0), 'datetime(0)', 'DATETIME(0)', 'DATETIME(0)'],
  [Portable.timestamp(3, true), 'timestamp(3)', 'DATETIME(3)', 'DATETIME(3)'],
  [Portable.timestamp(7, true), 'timestamp(6)', 'DATETIME(6)', 'DATETIME(6)'],
  [Portable.interval(), 'interval', 'VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin', 'VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin'],
  [Portable.uuid(), 'uuid', 'CHAR(36) CHARACTER SET ascii COLLATE ascii_bin', 'CHAR(36) CHARACTER SET ascii COLLATE ascii_bin'],
  [Portable.json(), 'json', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.array(Portable.integer()), 'int array', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
  [Portable.native('mysql', 'inet6'), 'inet6', 'INET6', 'INET6'],
  [Portable.native('postgres', 'inet'), 'text of postgres inet', `LONGTEXT CHARACTER SET utf8mb4 COLLATE ${COLLATION}`, '-'],
];

describe('MySQL staging types', () => {
  it.each(PORTABLE_TYPES)('%j is %s, declared %s (a key: %s)', (portable, logical, value, key) => {
    expect(logicalType(portable)).toBe(logical);
    expect(columnDeclaration(logical, 'value', COLLATION).sql).toBe(value);
    const asKey = columnDeclaration(logical, 'key', COLLATION);
    expect(asKey.keyBytes === null ? '-' : asKey.sql).toBe(key);
  });

  it('keeps the logical type in the comment, and reads a column without one by its COLUMN_TYPE', () => {
    expect(logicalTypeOfColumn('longtext', typeComment('varchar(40)'))).toBe('varchar(40)');
    expect(logicalTypeOfColumn('int(11)', '')).toBe('int(11)');
    expect(logicalTypeOfColumn('int(11)', 'a comment of someone else')).toBe('int(11)');
  });

  it('compares logical types in the lattice: a longer varchar widens, an instant is not a reading', () => {
    expect(columnTypeRelation(logicalType(Portable.varchar(20)), logicalType(Portable.varchar(40)), 'mysql')).toBe('widened');
    expect(columnTypeRelation(logicalType(Portable.integer()), logicalType(Portable.bigint()), 'mysql')).toBe('widened');
    expect(columnTypeRelation(logicalType(Portable.integer()), logicalType(Portable.decimal(20, 0)), 'mysql')).toBe('widened');
    expect(columnTypeRelation(logicalType(Portable.timestamp(3)), logicalType(Portable.timestamp(6)), 'mysql')).toBe('widened');
    expect(columnTypeRelation(logicalType(Portable.timestamp(6)), logicalType(Portable.timestamp(6, true)), 'mysql')).toBe('incompatible');
    expect(columnTypeRelation(logicalType(Portable.boolean()), logicalType(Portable.smallint()), 'mysql')).toBe('incompatible');
    expect(columnTypeRelation(logicalType(Portable.uuid()), logicalType(Portable.uuid()), 'mysql')).toBe('same');
  });

  describe('keys InnoDB must index whole (3072 bytes)', () => {
    const table = { schema: 'shop', name: 'orders' };
    const column = (name: string, portableType: PortableType): ColumnDefinition => ({ name, sourceType: 'x', portableType, nullable: false });

    it('takes a varchar key of 768 characters (4 bytes each in utf8mb4) and keys that fit together', () => {
      expect(checkedKeyDeclarations(table, [column('code', Portable.varchar(768))], ['code'], COLLATION).get('code')?.keyBytes).toBe(3072);
      expect([...checkedKeyDeclarations(table, [column('a', Portable.varchar(500)), column('b', Portable.bigint())], ['a', 'b'], COLLATION).keys()]).toEqual(['a', 'b']);
    });

    it('refuses, naming table and column, a key without a bound, one too long, and keys too long together', () => {
      expect(() => checkedKeyDeclarations(table, [column('code', Portable.text())], ['code'], COLLATION)).toThrow(StagingKeyError);
      expect(() => checkedKeyDeclarations(table, [column('code', Portable.text())], ['code'], COLLATION)).toThrow(/\[shop\]\.\[orders\].*key column code is text, which has no bound/);
      expect(() => checkedKeyDeclarations(table, [column('code', Portable.varchar(769))], ['code'], COLLATION)).toThrow(/key column code \(text\(769 characters\)\) takes up to 3076 bytes/);
      expect(() => checkedKeyDeclarations(table, [column('a', Portable.varchar(500)), column('b', Portable.varchar(300))], ['a', 'b'], COLLATION)).toThrow(/key columns \(a, b\) take up to 3200 bytes together/);
    });
  });
});
