import { Portable, interchangeTextProblem, type PortableType } from '@svc/contracts';
import { dateText, float32Text, labelsOf, mysqlColumnPlan, timeAsInterval, type KeyForm, type MysqlColumnPlan, type MysqlColumnRow } from './column-types';
import { MYSQL_TYPE_SAMPLES, mysqlSourceTypes } from './source-types';

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

function planOf(row: MysqlColumnRow): MysqlColumnPlan {
  const plan = mysqlColumnPlan(row);
  if (plan === null) throw new Error(`no plan for ${row.columnType}`);
  return plan;
}

describe('timeAsInterval: TIME, a signed duration, as an ISO 8601 interval with the sign on every part', () => {
  it.each([
    ['00:00:00', 'PT0H0M0S'],
    ['01:02:03', 'PT1H2M3S'],
    ['-01:02:03.5', 'PT-1H-2M-3.5S'],
    ['838:59:59', 'PT838H59M59S'],
    ['-838:59:59', 'PT-838H-59M-59S'],
    ['-838:59:59.99', 'PT-838H-59M-59.99S'],
    ['-838:59:59.000000', 'PT-838H-59M-59S'],
    ['-00:00:01.50', 'PT-0H-0M-1.5S'],
    ['-00:00:00.000001', 'PT-0H-0M-0.000001S'],
    ['12:34:56.120000', 'PT12H34M56.12S'],
    ['00:00:00.000000', 'PT0H0M0S'],
  ])('%s is %s', (raw, interval) => {
    expect(timeAsInterval(raw)).toBe(interval);
    expect(interchangeTextProblem(Portable.interval(), interval)).toBeNull();
  });

  it.each(['', '12:34', '1:2:3', 'abc', '12:34:56.', '+01:02:03', '01:02:03 '])('refuses %j, naming it', (raw) => {
    expect(() => timeAsInterval(raw)).toThrow(/not hh:mm:ss/);
  });
});

describe('float32Text: the shortest text that reads back as the same single-precision value', () => {
  it.each([
    // CAST(float AS DOUBLE) as MariaDB 10.11 prints it for the value stored, and what the FLOAT holds.
    ['1.2345677614212036', '1.2345678'],
    ['0.10000000149011612', '0.1'],
    ['3.4028234663852886e38', '3.4028235e+38'],
    ['3.402820018375656e38', '3.40282e+38'],
    ['-1.1754943508222875e-38', '-1.1754944e-38'],
    ['-1.2345677614212036', '-1.2345678'],
    ['1.401298464324817e-45', '1e-45'],
    ['16777216', '16777216'],
    ['16777217', '16777216'],
    ['1.5', '1.5'],
    ['-2', '-2'],
    ['0', '0'],
  ])('%s is %s', (raw, text) => {
    expect(float32Text(raw)).toBe(text);
    expect(Math.fround(Number(text))).toBe(Math.fround(Number(raw)));
    expect(interchangeTextProblem(Portable.float(4), text)).toBeNull();
  });

  it('passes through what is not a finite number', () => {
    expect(float32Text('NaN')).toBe('NaN');
    expect(float32Text('Infinity')).toBe('Infinity');
  });
});

describe('dateText: zero dates have no calendar date', () => {
  it.each<[string, string | null]>([
    ['2024-02-29', '2024-02-29'],
    ['1000-01-01', '1000-01-01'],
    ['2024-02-29 23:59:59.000001', '2024-02-29 23:59:59.000001'],
    ['0000-00-00', null],
    ['0000-00-00 00:00:00', null],
    ['0000-01-01', null],
    ['2024-00-15', null],
    ['2024-01-00', null],
    ['2024-00-00 12:00:00', null],
  ])('%s is %j', (raw, text) => {
    expect(dateText(raw)).toBe(text);
  });
});

describe('labelsOf: ENUM and SET labels as COLUMN_TYPE writes them', () => {
  it.each<[string, string[]]>([
    ["enum('small','large')", ['small', 'large']],
    ["ENUM('a')", ['a']],
    ["set('a','b','c')", ['a', 'b', 'c']],
    // A quote is doubled.
    ["enum('it''s','''','a''''b')", ["it's", "'", "a''b"]],
    ["enum('','x')", ['', 'x']],
    // Commas, parentheses and spaces inside a label are its text.
    ["enum('x,y','(p)',' a b ')", ['x,y', '(p)', ' a b ']],
    // The server writes a backslash, NUL, newline and carriage return escaped (append_unescaped); a tab as it is.
    ["enum('a\\\\b','\\\\')", ['a\\b', '\\']],
    ["enum('z\\0z','nl\\nx','cr\\rx','tab\tx')", ['z\0z', 'nl\nx', 'cr\rx', 'tab\tx']],
    ["enum('q\"','pct%_')", ['q"', 'pct%_']],
    ['varchar(10)', []],
  ])('%s', (columnType, labels) => {
    expect(labelsOf(columnType)).toEqual(labels);
  });
});

describe('mysqlColumnPlan: the portable type, select and text of each MySQL type', () => {
  // Each sample's raw value is the server's text of it, as the plan's select renders it (MariaDB 10.11, time_zone +00:00).
  it.each<[string, MysqlColumnRow, PortableType, KeyForm | null, string, [string, string | null][]]>([
    ['tinyint', column('tinyint', 'tinyint(4)'), Portable.smallint(), 'integer', '`c`', [['-128', '-128'], ['127', '127'], ['0', '0']]],
    ['tinyint unsigned', column('tinyint', 'tinyint(3) unsigned'), Portable.smallint(), 'unsigned', '`c`', [['255', '255']]],
    ['smallint', column('smallint', 'smallint(6)'), Portable.smallint(), 'integer', '`c`', [['-32768', '-32768'], ['32767', '32767']]],
    ['smallint unsigned', column('smallint', 'smallint(5) unsigned'), Portable.integer(), 'unsigned', '`c`', [['65535', '65535']]],
    ['mediumint', column('mediumint', 'mediumint(9)'), Portable.integer(), 'integer', '`c`', [['-8388608', '-8388608']]],
    ['mediumint unsigned', column('mediumint', 'mediumint(8) unsigned'), Portable.integer(), 'unsigned', '`c`', [['16777215', '16777215']]],
    ['int', column('int', 'int(11)'), Portable.integer(), 'integer', '`c`', [['-2147483648', '-2147483648'], ['2147483647', '2147483647']]],
    ['int unsigned', column('int', 'int(10) unsigned'), Portable.bigint(), 'unsigned', '`c`', [['4294967295', '4294967295']]],
    ['int zerofill', column('int', 'int(10) unsigned zerofill'), Portable.bigint(), 'unsigned', '`c`', [['0000000042', '42'], ['0000000000', '0']]],
    ['bigint', column('bigint', 'bigint(20)'), Portable.bigint(), 'integer', '`c`', [['-9223372036854775808', '-9223372036854775808'], ['9223372036854775807', '9223372036854775807']]],
    ['bigint unsigned', column('bigint', 'bigint(20) unsigned'), Portable.decimal(20, 0), 'unsigned', '`c`', [['18446744073709551615', '18446744073709551615'], ['0', '0']]],
    ['decimal(12,3)', column('decimal', 'decimal(12,3)', { numericPrecision: 12, numericScale: 3 }), Portable.decimal(12, 3), 'decimal', '`c`', [['-123456789.123', '-123456789.123'], ['0.000', '0.000']]],
    ['decimal(65,30)', column('decimal', 'decimal(65,30)', { numericPrecision: 65, numericScale: 30 }), Portable.decimal(65, 30), 'decimal', '`c`', [['-0.500000000000000000000000000000', '-0.500000000000000000000000000000']]],
    ['numeric(5,0)', column('numeric', 'decimal(5,0)', { numericPrecision: 5, numericScale: 0 }), Portable.decimal(5, 0), 'decimal', '`c`', [['12345', '12345']]],
    ['float', column('float', 'float'), Portable.float(4), null, 'CAST(`c` AS DOUBLE)', [['1.2345677614212036', '1.2345678'], ['3.4028234663852886e38', '3.4028235e+38'], ['0', '0']]],
    ['double', column('double', 'double'), Portable.float(8), null, '`c`', [['-1.5e-300', '-1.5e-300'], ['1.7976931348623157e308', '1.7976931348623157e308']]],
    ['bit(1)', column('bit', 'bit(1)', { numericPrecision: 1 }), Portable.boolean(), null, '`c` + 0', [['0', 'f'], ['1', 't']]],
    ['bit(10)', column('bit', 'bit(10)', { numericPrecision: 10 }), Portable.binary(2, true), null, "LPAD(HEX(`c`), 4, '0')", [['0201', '\\x0201'], ['03FF', '\\x03ff']]],
    ['bit(64)', column('bit', 'bit(64)', { numericPrecision: 64 }), Portable.binary(8, true), null, "LPAD(HEX(`c`), 16, '0')", [['FFFFFFFFFFFFFFFF', '\\xffffffffffffffff']]],
    ['year', column('year', 'year(4)'), Portable.smallint(), 'year', '`c`', [['2155', '2155'], ['1901', '1901'], ['0000', '0']]],
    ['date', column('date', 'date'), Portable.date(), 'date', '`c`', [['2024-02-29', '2024-02-29'], ['0000-00-00', null]]],
    ['datetime(6)', column('datetime', 'datetime(6)', { datetimePrecision: 6 }), Portable.timestamp(6), 'datetime', '`c`', [['2024-02-29 23:59:59.000001', '2024-02-29 23:59:59.000001'], ['0000-00-00 00:00:00.000000', null]]],
    ['datetime', column('datetime', 'datetime', { datetimePrecision: 0 }), Portable.timestamp(0), 'datetime', '`c`', [['1000-01-01 00:00:00', '1000-01-01 00:00:00']]],
    ['timestamp(3)', column('timestamp', 'timestamp(3)', { datetimePrecision: 3 }), Portable.timestamp(3, true), 'timestamp', '`c`', [['2024-02-29 23:59:59.500', '2024-02-29 23:59:59.500+00'], ['0000-00-00 00:00:00.000', null]]],
    ['time(2)', column('time', 'time(2)', { datetimePrecision: 2 }), Portable.interval(), 'time', '`c`', [['-838:59:59.99', 'PT-838H-59M-59.99S'], ['00:00:00.00', 'PT0H0M0S']]],
    ['char(10) utf8mb4', column('char', 'char(10)', { characterLength: 10, characterSet: 'utf8mb4' }), Portable.char(10), 'text', '`c`', [['a b', 'a b'], ['', '']]],
    ['varchar(255) utf8mb3', column('varchar', 'varchar(255)', { characterLength: 255, characterSet: 'utf8mb3' }), Portable.varchar(255), 'text', '`c`', [['x  ', 'x  ']]],
    ['varchar(300) latin1', column('varchar', 'varchar(300)', { characterLength: 300, characterSet: 'latin1' }), Portable.varchar(300), 'text', '`c`', [['café', 'café']]],
    ['tinytext utf8mb4', column('tinytext', 'tinytext', { characterLength: 255, characterSet: 'utf8mb4' }), { kind: 'text', length: 255, unit: 'bytes', fixed: false }, null, '`c`', [['t', 't']]],
    ['text latin1', column('text', 'text', { characterLength: 65_535, characterSet: 'latin1' }), { kind: 'text', length: 65_535, unit: 'characters', fixed: false }, null, '`c`', [['t', 't']]],
    ['mediumtext', column('mediumtext', 'mediumtext', { characterSet: 'utf8mb4' }), Portable.text(), null, '`c`', [['m', 'm']]],
    ['longtext', column('longtext', 'longtext', { characterSet: 'utf8mb4' }), Portable.text(), null, '`c`', [['l', 'l']]],
    ['MariaDB json (longtext)', column('longtext', 'longtext', { characterSet: 'utf8mb4', json: true }), Portable.json(), null, '`c`', [['{"a":1}', '{"a":1}']]],
    ['MySQL json', column('json', 'json'), Portable.json(), null, 'CAST(`c` AS CHAR)', [['{"a": [1, 2]}', '{"a": [1, 2]}']]],
    ['enum', column('enum', "enum('small','large')", { characterLength: 5, characterSet: 'utf8mb4' }), Portable.varchar(5), 'enum', '`c`', [['large', 'large']]],
    ['set', column('set', "set('a','b','c')", { characterLength: 5, characterSet: 'utf8mb4' }), Portable.varchar(5), null, '`c`', [['a,c', 'a,c']]],
    ['binary(16)', column('binary', 'binary(16)', { characterLength: 16 }), Portable.binary(16, true), 'binary', 'HEX(`c`)', [['00FF00000000000000000000000000AB', '\\x00ff00000000000000000000000000ab']]],
    ['varbinary(200)', column('varbinary', 'varbinary(200)', { characterLength: 200 }), Portable.binary(200), 'binary', 'HEX(`c`)', [['', '\\x'], ['FFFF', '\\xffff']]],
    ['blob', column('blob', 'blob', { characterLength: 65_535 }), Portable.binary(), null, 'HEX(`c`)', [['0102', '\\x0102']]],
    ['longblob', column('longblob', 'longblob'), Portable.binary(), null, 'HEX(`c`)', [['AB', '\\xab']]],
    ['point', column('point', 'point'), Portable.binary(), null, 'HEX(`c`)', [['000000000101000000000000000000F03F0000000000000040', '\\x000000000101000000000000000000f03f0000000000000040']]],
    ['geometry', column('geometry', 'geometry'), Portable.binary(), null, 'HEX(`c`)', [['00', '\\x00']]],
    ['uuid', column('uuid', 'uuid'), Portable.uuid(), null, '`c`', [['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000']]],
    ['inet6', column('inet6', 'inet6'), Portable.native('mysql', 'inet6'), null, '`c`', [['2001:db8::1', '2001:db8::1']]],
    ['inet4', column('inet4', 'inet4'), Portable.native('mysql', 'inet4'), null, '`c`', [['192.168.0.1', '192.168.0.1']]],
  ])('%s', (_type, row, portableType, key, select, samples) => {
    const plan = planOf(row);
    expect(plan.portableType).toEqual(portableType);
    expect(plan.key).toBe(key);
    expect(plan.select('`c`')).toBe(select);
    for (const [raw, text] of samples) {
      expect([raw, plan.text(raw)]).toEqual([raw, text]);
      if (text !== null) expect([text, interchangeTextProblem(plan.portableType, text)]).toEqual([text, null]);
    }
  });

  it('hands the key reader what it needs: the character set of a text key, the length of BINARY, the ENUM labels', () => {
    expect(planOf(column('char', 'char(3)', { characterLength: 3, characterSet: 'latin1' })).characterSet).toBe('latin1');
    expect(planOf(column('varchar', 'varchar(3)', { characterLength: 3 })).characterSet).toBe('utf8mb4');
    expect(planOf(column('binary', 'binary(4)', { characterLength: 4 })).fixedBytes).toBe(4);
    expect(planOf(column('varbinary', 'varbinary(4)', { characterLength: 4 })).fixedBytes).toBeUndefined();
    expect(planOf(column('enum', "enum('a\\\\b','it''s')", { characterLength: 4 })).labels).toEqual(['a\\b', "it's"]);
  });

  it('follows no text key of a character set the binary-log reader cannot decode', () => {
    expect(planOf(column('varchar', 'varchar(10)', { characterLength: 10, characterSet: 'sjis' })).key).toBeNull();
    expect(planOf(column('char', 'char(10)', { characterLength: 10, characterSet: 'ascii' })).key).toBe('text');
  });

  it('says what each lossy type changes on the way', () => {
    expect(planOf(column('bigint', 'bigint(20) unsigned')).changes).toMatch(/decimal\(20,0\)/);
    expect(planOf(column('bit', 'bit(1)', { numericPrecision: 1 })).changes).toMatch(/boolean/);
    expect(planOf(column('date', 'date')).changes).toMatch(/zero dates/);
    expect(planOf(column('timestamp', 'timestamp')).changes).toMatch(/UTC/);
    expect(planOf(column('time', 'time')).changes).toMatch(/interval/);
    expect(planOf(column('char', 'char(1)', { characterLength: 1 })).changes).toMatch(/trailing spaces/);
    expect(planOf(column('int', 'int(11)')).changes).toBeNull();
  });

  it('keeps at most six fractional digits and at least none', () => {
    expect(planOf(column('datetime', 'datetime', { datetimePrecision: null })).portableType).toEqual(Portable.timestamp(0));
    expect(planOf(column('timestamp', 'timestamp(6)', { datetimePrecision: 6 })).portableType).toEqual(Portable.timestamp(6, true));
  });

  it('has no plan for a type it does not know', () => {
    expect(mysqlColumnPlan(column('vector', 'vector(3)'))).toBeNull();
  });

  it('plans every sample of the type table, and each sample has a distinct engine type', () => {
    for (const row of MYSQL_TYPE_SAMPLES) expect([row.columnType, mysqlColumnPlan(row) === null]).toEqual([row.columnType, false]);
    const mapped = mysqlSourceTypes();
    expect(mapped).toHaveLength(MYSQL_TYPE_SAMPLES.length);
    expect(new Set(mapped.map((entry) => entry.engineType)).size).toBe(mapped.length);
  });
});
