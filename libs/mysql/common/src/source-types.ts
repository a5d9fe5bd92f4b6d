import type { SourceTypeMapping } from '@svc/engines';
import { mysqlColumnPlan, type MysqlColumnRow } from './column-types';

const column = (dataType: string, columnType: string, size: Partial<MysqlColumnRow> = {}): MysqlColumnRow => ({
  name: 'c',
  dataType,
  columnType,
  characterLength: null,
  numericPrecision: null,
  numericScale: null,
  datetimePrecision: null,
  characterSet: null,
  json: false,
  ...size,
});

/** One column of each case of mysqlColumnPlan, sized as information_schema.COLUMNS reports it. */
export const MYSQL_TYPE_SAMPLES: readonly MysqlColumnRow[] = [
  column('tinyint', 'tinyint(4)'),
  column('tinyint', 'tinyint(3) unsigned'),
  column('smallint', 'smallint(6)'),
  column('smallint', 'smallint(5) unsigned'),
  column('mediumint', 'mediumint(9)'),
  column('int', 'int(11)'),
  column('int', 'int(10) unsigned'),
  column('bigint', 'bigint(20)'),
  column('bigint', 'bigint(20) unsigned'),
  column('decimal', 'decimal(65,30)', { numericPrecision: 65, numericScale: 30 }),
  column('float', 'float'),
  column('double', 'double'),
  column('bit', 'bit(1)', { numericPrecision: 1 }),
  column('bit', 'bit(10)', { numericPrecision: 10 }),
  column('year', 'year(4)'),
  column('date', 'date'),
  column('datetime', 'datetime(6)', { datetimePrecision: 6 }),
  column('timestamp', 'timestamp(3)', { datetimePrecision: 3 }),
  column('time', 'time(2)', { datetimePrecision: 2 }),
  column('char', 'char(10)', { characterLength: 10, characterSet: 'utf8mb4' }),
  column('varchar', 'varchar(255)', { characterLength: 255, characterSet: 'utf8mb3' }),
  column('tinytext', 'tinytext', { characterLength: 255, characterSet: 'utf8mb4' }),
  column('text', 'text', { characterLength: 65_535, characterSet: 'latin1' }),
  column('longtext', 'longtext', { characterLength: 4_294_967_295, characterSet: 'utf8mb4' }),
  column('longtext', 'longtext', { characterLength: 4_294_967_295, characterSet: 'utf8mb4', json: true }),
  column('json', 'json'),
  column('enum', "enum('small','large')", { characterLength: 5, characterSet: 'utf8mb4' }),
  column('set', "set('a','b','c')", { characterLength: 5, characterSet: 'utf8mb4' }),
  column('binary', 'binary(16)', { characterLength: 16 }),
  column('varbinary', 'varbinary(200)', { characterLength: 200 }),
  column('blob', 'blob', { characterLength: 65_535 }),
  column('geometry', 'geometry'),
  column('point', 'point'),
  column('uuid', 'uuid'),
  column('inet6', 'inet6'),
];

const engineTypeOf = (row: MysqlColumnRow) => (row.json ? 'json (MariaDB: longtext with json_valid)' : row.characterSet === null ? row.columnType : `${row.columnType} character set ${row.characterSet}`);

/** What the MySQL source reads each of its types as: the samples through mysqlColumnPlan, the mapping its catalog reads use. */
export function mysqlSourceTypes(): SourceTypeMapping[] {
  return MYSQL_TYPE_SAMPLES.flatMap((row) => {
    const plan = mysqlColumnPlan(row);
    return plan === null ? [] : [{ engineType: engineTypeOf(row), portableType: plan.portableType, changes: plan.changes }];
  });
}
