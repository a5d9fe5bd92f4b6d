import { sqlServerConfig, sqlServerDatabaseName } from '@svc/sqlserver/common';
import { Append, Increment, allOf, anyOf, atMost, below, between, insert, keyIn, keyIs, remove, update } from './changes';
import { SQL_SERVER_SOURCE_LOSSES } from './declared-losses';
import { EDGE_CASES, edgeCaseRows } from './edge-cases';
import { AUDIT_LOG, GROW_EVERY_ITEM, ITEMS, MIXED_WORKLOAD, ORDER_LINES } from './pipeline-tables';
import {
  StatementBuilder,
  addColumnSql,
  canonicalText,
  changeStatements,
  createDatabaseSql,
  createTableSql,
  ensureSchemaSql,
  expireChangesSql,
  isSqlServerConflict,
  parameterOf,
  quoteName,
  readRowsStatement,
  rowsPerInsert,
  sqlServerSchema,
  sqlServerTable,
  sqlServerType,
  suiteDatabaseNames,
  withDatabase,
  type TsqlStatement,
} from './sqlserver-fixture';
import { Json, canonical, type NeutralType, type Row, type TableSpec } from './table-spec';

// The T-SQL is reviewed as text here: no SQL Server runs in CI (the suite runs against one when MSSQL_URL is set).
const valueShown = (value: unknown) => {
  const text = Buffer.isBuffer(value) ? `0x${value.toString('hex')}` : JSON.stringify(value);
  const characters = [...text];
  return characters.length > 60 ? `${characters.slice(0, 20).join('')}… (${characters.length} characters)` : text;
};
const shown = (statement: TsqlStatement) =>
  [statement.text, ...statement.parameters.map((parameter) => `@${parameter.name} ${parameter.type} = ${valueShown(parameter.value)}`)].join('\n');

const EVERY_TYPE: TableSpec = {
  schema: 'public',
  name: 'every ]type',
  columns: [
    { name: 'id', type: 'int' },
    { name: 'big', type: 'bigint' },
    { name: 'money', type: 'decimal(12,2)' },
    { name: 'exact', type: 'decimal(38,10)' },
    { name: 'body', type: 'text' },
    { name: 'short', type: 'varchar(40)', nullable: false },
    { name: 'at', type: 'timestamptz' },
    { name: 'blob', type: 'bytes' },
    { name: 'uid', type: 'uuid' },
    { name: 'doc', type: 'json' },
    { name: 'tags', type: 'text[]' },
    { name: 'mood', type: 'enum', labels: ['happy', "it's"] },
    { name: 'done', type: 'boolean' },
  ],
  primaryKey: ['id'],
};

describe('SQL Server types of the neutral types', () => {
  it.each([
    ['int', 'int'],
    ['bigint', 'bigint'],
    ['decimal(12,2)', 'decimal(12,2)'],
    ['decimal(38,10)', 'decimal(38,10)'],
    ['text', 'nvarchar(max)'],
    ['varchar(40)', 'nvarchar(40)'],
    ['timestamptz', 'datetimeoffset(6)'],
    ['bytes', 'varbinary(max)'],
    ['uuid', 'uniqueidentifier'],
    ['json', 'nvarchar(max)'],
    ['text[]', 'nvarchar(max)'],
    ['enum', 'nvarchar(20)'],
    ['boolean', 'bit'],
  ] as const)('%s → %s', (type, tsql) => {
    expect(sqlServerType(type)).toBe(tsql);
  });

  it('creates every type, the key NOT NULL, the enum limited to its labels by a CHECK', () => {
    expect(createTableSql(EVERY_TYPE)).toMatchSnapshot();
  });
});

describe('reading values back: the text SQL Server gives is one `canonical` accepts', () => {
  it.each([
    ['int', 'CONVERT(varchar(20), [c])', '42', '42'],
    ['bigint', 'CONVERT(varchar(20), [c])', '-9223372036854775808', '-9223372036854775808'],
    ['decimal(12,2)', 'CONVERT(varchar(50), [c])', '100.50', '100.5'],
    ['decimal(38,10)', 'CONVERT(varchar(50), [c])', '12345678901234567890.0123456789', '12345678901234567890.0123456789'],
    ['timestamptz', "CONVERT(varchar(34), SWITCHOFFSET([c], '+00:00'), 121)", '2026-01-01 00:01:00.000000 +00:00', '2026-01-01T00:01:00.000000Z'],
    ['bytes', 'CONVERT(varchar(max), [c], 2)', 'DEADBEEF', 'deadbeef'],
    ['uuid', 'CONVERT(char(36), [c])', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['boolean', 'CONVERT(varchar(1), [c])', '1', 'true'],
    ['boolean', 'CONVERT(varchar(1), [c])', '0', 'false'],
    ['json', '[c]', '{"tag":"x1","n":1}', '{"n":1,"tag":"x1"}'],
    ['text[]', '[c]', '["a1","b,\\"c\\""]', '["a1","b,\\"c\\""]'],
    ['enum', '[c]', 'happy', 'happy'],
    ['text', '[c]', ' as is ', ' as is '],
  ] as const)('%s read as %s', (type: NeutralType, expression, text, expected) => {
    expect(canonicalText(type, 'c')).toBe(expression);
    expect(canonical(type, text)).toBe(expected);
  });

  it('names the columns c0, c1… in spec order, filtered by a condition when given', () => {
    expect(shown(readRowsStatement(ITEMS, allOf(keyIs('feeling', 'sad'), below('id', 1000))))).toMatchSnapshot();
    expect(readRowsStatement(AUDIT_LOG).text).toBe(
      "SELECT CONVERT(varchar(34), SWITCHOFFSET([at], '+00:00'), 121) AS [c0], [message] AS [c1] FROM [dbo].[audit_log]",
    );
  });
});

describe('parameters', () => {
  it.each([
    ['text', 'x', { type: 'nvarchar(max)', value: 'x' }],
    ['a boolean', true, { type: 'bit', value: true }],
    ['a bigint, as its digits', 9007199254740993n, { type: 'bigint', value: '9007199254740993' }],
    ['an integer', 7, { type: 'bigint', value: 7 }],
    ['a fraction', 1.5, { type: 'float', value: 1.5 }],
    ['a JSON document, as its text', new Json({ n: 1 }), { type: 'nvarchar(max)', value: '{"n":1}' }],
    ['a text array, as JSON text', ['a', 'b,"c"'], { type: 'nvarchar(max)', value: '["a","b,\\"c\\""]' }],
  ] as const)('%s', (_, value, expected) => {
    expect(parameterOf(value)).toEqual(expected);
  });

  it('sends bytes as varbinary and instants as datetimeoffset', () => {
    const bytes = Buffer.from('dead', 'hex');
    const instant = new Date(Date.UTC(2026, 0, 1));
    expect(parameterOf(bytes)).toEqual({ type: 'varbinary(max)', value: bytes });
    expect(parameterOf(instant)).toEqual({ type: 'datetimeoffset', value: instant });
  });

  it('writes NULL as a literal, numbering only the parameters it binds', () => {
    const builder = new StatementBuilder();
    expect([builder.bind(null), builder.bind('a'), builder.bind(null), builder.bind(2)]).toEqual(['NULL', '@p1', 'NULL', '@p2']);
    expect(builder.parameters.map((parameter) => parameter.name)).toEqual(['p1', 'p2']);
  });
});

describe('conditions and assignments', () => {
  const render = (where: Parameters<StatementBuilder['condition']>[1]) => {
    const builder = new StatementBuilder();
    return { text: builder.condition(ITEMS, where), parameters: builder.parameters.length };
  };

  it.each([
    ['equals', keyIs('id', 10), '[id] = @p1', 1],
    ['equals NULL', keyIs('note', null), '[note] = NULL', 0],
    ['in', keyIn('id', [1, 2, 3]), '[id] IN (@p1, @p2, @p3)', 3],
    ['in nothing', keyIn('id', []), '1 = 0', 0],
    ['between', between('id', 200, 250), '[id] BETWEEN @p1 AND @p2', 2],
    ['at most', atMost('id', 100), '[id] <= @p1', 1],
    ['below', below('id', 1000), '[id] < @p1', 1],
    ['all', allOf(keyIs('feeling', 'sad'), below('id', 1000)), '([feeling] = @p1 AND [id] < @p2)', 2],
    ['all of nothing: every row', allOf(), '1 = 1', 0],
    ['any', anyOf(keyIs('id', 1), allOf(keyIs('id', 2), keyIs('name', 'x'))), '([id] = @p1 OR ([id] = @p2 AND [name] = @p3))', 3],
    ['any of nothing: no row', anyOf(), '1 = 0', 0],
  ] as const)('%s', (_, where, text, parameters) => {
    expect(render(where)).toEqual({ text, parameters });
  });

  it('refuses a column the table does not have', () => {
    expect(() => render(keyIs('nope', 1))).toThrow('public.items has no column nope');
  });

  it.each([
    ['a value', 'name', 'x', '[name] = @p1'],
    ['NULL', 'doc', null, '[doc] = NULL'],
    ['an increment', 'price', new Increment(1), '[price] = [price] + @p1'],
    ['an append', 'note', new Append('+'), "[note] = COALESCE([note], N'') + @p1"],
  ] as const)('assigns %s', (_, column, assignment, text) => {
    expect(new StatementBuilder().assignment(ITEMS, column, assignment)).toBe(text);
  });
});

describe('inserts', () => {
  const rows = (count: number, row: (g: number) => Row) => Array.from({ length: count }, (_, index) => row(index + 1));

  it('keeps within 2000 parameters and 1000 rows per INSERT', () => {
    expect(rowsPerInsert(1)).toBe(1000);
    expect(rowsPerInsert(3)).toBe(666);
    expect(rowsPerInsert(10)).toBe(200);
    expect(rowsPerInsert(2500)).toBe(1);
  });

  it('splits 3000 rows of 10 columns into 15 statements of 200 rows', () => {
    const statements = changeStatements(insert(ITEMS, rows(3000, (g) => ({ id: g, name: `item ${g}`, price: '1.5', happened: new Date(g), payload: Buffer.from([g % 256]), uid: null, doc: new Json({ g }), tags: ['a'], feeling: 'meh', note: null }))));
    expect(statements).toHaveLength(15);
    for (const statement of statements) {
      // NULLs take no parameter: 8 of the 10 values of each row are bound.
      expect(statement.parameters).toHaveLength(1600);
      expect(statement.text.match(/\),? ?\(/g)?.length).toBe(199);
    }
  });

  it('splits 2500 rows of one column at 1000 rows', () => {
    const single: TableSpec = { schema: 'sales', name: 'ids', columns: [{ name: 'id', type: 'int' }], primaryKey: ['id'] };
    expect(changeStatements(insert(single, rows(2500, (g) => ({ id: g })))).map((statement) => statement.parameters.length)).toEqual([1000, 1000, 500]);
  });

  it('writes only the columns some row has, a missing value as NULL', () => {
    const [statement] = changeStatements(insert(ITEMS, [{ id: 1, name: 'a' }, { id: 2, feeling: 'sad' }]));
    expect(statement && shown(statement)).toBe(
      ['INSERT INTO [dbo].[items] ([id], [name], [feeling]) VALUES (@p1, @p2, NULL), (@p3, NULL, @p4)', '@p1 bigint = 1', '@p2 nvarchar(max) = "a"', '@p3 bigint = 2', '@p4 nvarchar(max) = "sad"'].join('\n'),
    );
  });
});

describe('generated T-SQL of the suite\'s changes', () => {
  it('renders a row of every type', () => {
    const row: Row = {
      id: 1,
      big: 2n,
      money: '12.50',
      exact: '1.0000000001',
      body: '😀',
      short: "it's",
      at: new Date(Date.UTC(2026, 0, 1, 0, 1)),
      blob: Buffer.from('deadbeef', 'hex'),
      uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      doc: new Json({ tag: 'x', n: 1 }),
      tags: ['a1', 'b,"c"'],
      mood: 'happy',
      done: false,
    };
    expect(changeStatements(insert(EVERY_TYPE, [row])).map(shown)).toMatchSnapshot();
  });

  it('renders the edge-case table for SQL Server: mixed-case names as written, values at their limits, an empty binary value', () => {
    expect(createTableSql(EDGE_CASES)).toBe(
      'CREATE TABLE [Edge_Cases].[Limits_And_Blanks] ([Code] nvarchar(40) NOT NULL, [Small_Int] int NULL, [Big_Int] bigint NULL, [Amount] decimal(38,10) NULL, [Label] nvarchar(40) NULL, [Happened_At] datetimeoffset(6) NULL, [Blob] varbinary(max) NULL, PRIMARY KEY ([Code]))',
    );
    const [statement] = changeStatements(insert(EDGE_CASES, edgeCaseRows(SQL_SERVER_SOURCE_LOSSES)));
    const parameters = statement?.parameters ?? [];
    expect(parameters.filter((parameter) => parameter.type === 'bigint').map((parameter) => String(parameter.value))).toEqual(
      expect.arrayContaining(['2147483647', '9223372036854775807', '-2147483648', '-9223372036854775808']),
    );
    expect(parameters.filter((parameter) => parameter.type === 'varbinary(max)').map((parameter) => (Buffer.isBuffer(parameter.value) ? parameter.value.length : -1))).toEqual([0, 1]);
    // SQL Server's = pads with blanks: the table never holds two keys equal without their trailing blanks.
    const keys = edgeCaseRows(SQL_SERVER_SOURCE_LOSSES).map((row) => (typeof row['Code'] === 'string' ? row['Code'].trimEnd() : null));
    expect(new Set(keys).size).toBe(3);
  });

  it('renders the mixed workload\'s updates and deletes', () => {
    const [first, ...rest] = MIXED_WORKLOAD;
    const changes = [...(first?.changes.slice(1) ?? []), ...rest.flatMap((work) => work.changes).filter((change) => change.kind !== 'insert')];
    expect(changes.flatMap(changeStatements).map(shown)).toMatchSnapshot();
  });

  it('renders the growth of every item, and deletes in the schema of its own', () => {
    expect([...GROW_EVERY_ITEM.changes, remove(ORDER_LINES, keyIs('order_id', 5)), update(ORDER_LINES, { line: 99 }, allOf(keyIs('order_id', 1), keyIs('line', 1)))].flatMap(changeStatements).map(shown)).toMatchSnapshot();
  });

  it('adds columns: nullable, and NOT NULL with a value for existing rows', () => {
    expect(addColumnSql(ORDER_LINES, { name: 'note', type: 'varchar(40)' })).toBe('ALTER TABLE [sales].[order_lines] ADD [note] nvarchar(40) NULL');
    expect(addColumnSql(ORDER_LINES, { name: 'status', type: 'text', nullable: false }, 'open')).toBe(
      "ALTER TABLE [sales].[order_lines] ADD [status] nvarchar(max) NOT NULL DEFAULT N'open' WITH VALUES",
    );
    expect(addColumnSql(ITEMS, { name: 'grade', type: 'int', nullable: false }, 7)).toBe('ALTER TABLE [dbo].[items] ADD [grade] int NOT NULL DEFAULT 7 WITH VALUES');
    expect(() => addColumnSql(ITEMS, { name: 'when', type: 'timestamptz' }, new Date())).toThrow('numbers, booleans or text only');
  });

  it('creates schemas idempotently, and expires a table\'s changes past the watermark', () => {
    expect(ensureSchemaSql('sales')).toBe("IF SCHEMA_ID(N'sales') IS NULL EXEC(N'CREATE SCHEMA [sales]')");
    expect(ensureSchemaSql("o'neil")).toBe("IF SCHEMA_ID(N'o''neil') IS NULL EXEC(N'CREATE SCHEMA [o''neil]')");
    expect(expireChangesSql(ITEMS)).toMatchSnapshot();
  });
});

describe('schema mapping and names', () => {
  it('puts the suite\'s public schema in dbo and keeps the others', () => {
    expect(sqlServerSchema('public')).toBe('dbo');
    expect(sqlServerSchema('sales')).toBe('sales');
    expect(sqlServerTable(ITEMS)).toBe('[dbo].[items]');
    expect(sqlServerTable(ORDER_LINES)).toBe('[sales].[order_lines]');
  });

  it('doubles ] in names', () => {
    expect(quoteName('a]b')).toBe('[a]]b]');
    expect(sqlServerTable(EVERY_TYPE)).toBe('[dbo].[every ]]type]');
  });
});

describe('conflicts between transactions', () => {
  it.each([1205, 2627, 2601, 3960])('error %i is one', (number) => {
    expect(isSqlServerConflict({ name: 'RequestError', number })).toBe(true);
    expect(isSqlServerConflict({ name: 'RequestError', originalError: { number } })).toBe(true);
  });

  it('other errors are not', () => {
    expect(isSqlServerConflict({ name: 'RequestError', number: 208 })).toBe(false);
    expect(isSqlServerConflict(new Error('deadlock'))).toBe(false);
    expect(isSqlServerConflict(null)).toBe(false);
  });
});

describe('the suite\'s databases on the server MSSQL_URL names', () => {
  const names = suiteDatabaseNames('lz1abc2f_1');
  const configOf = (connectionString: string) => sqlServerConfig(connectionString, { encrypt: false, connectTimeoutMs: 1000 });

  it('names them after the run', () => {
    expect(names).toEqual({ source: 'svc_suite_lz1abc2f_1_source', staging: 'svc_suite_lz1abc2f_1_staging' });
    expect(createDatabaseSql(names.source)).toBe("IF DB_ID(N'svc_suite_lz1abc2f_1_source') IS NULL CREATE DATABASE [svc_suite_lz1abc2f_1_source]");
  });

  it('adds the database to an mssql:// URL, keeping its query (TLS settings included) as written', () => {
    const url = 'mssql://sa:Svc-Local-Dev-1@127.0.0.1:1433?trustservercertificate=true';
    const source = withDatabase(url, names.source);
    expect(source).toBe('mssql://sa:Svc-Local-Dev-1@127.0.0.1:1433/svc_suite_lz1abc2f_1_source?trustservercertificate=true');
    expect(configOf(source)).toMatchObject({ server: '127.0.0.1', port: 1433, user: 'sa', password: 'Svc-Local-Dev-1', database: names.source, options: { trustServerCertificate: true } });
  });

  it('keeps a named instance of the URL and replaces a database it names', () => {
    expect(withDatabase('mssql://u:p%40w@db.example/inst/master', 'x')).toBe('mssql://u:p%40w@db.example/inst/x');
    expect(withDatabase('mssql://u:pw@db.example:1433/master', 'x')).toBe('mssql://u:pw@db.example:1433/x');
    expect(configOf(withDatabase('mssql://u:p%40w@db.example/inst/master', 'x'))).toMatchObject({ password: 'p@w', database: 'x', options: { instanceName: 'inst' } });
  });

  it('adds Database= to an ADO string, which then wins over any it had', () => {
    const ado = 'Server=127.0.0.1,1433;User ID=sa;Password="p;w";Encrypt=true;TrustServerCertificate=true;';
    const source = withDatabase(ado, names.source);
    expect(source).toBe(`Server=127.0.0.1,1433;User ID=sa;Password="p;w";Encrypt=true;TrustServerCertificate=true;Database=${names.source}`);
    expect(configOf(source)).toMatchObject({ password: 'p;w', database: names.source, options: { encrypt: true, trustServerCertificate: true } });
    expect(sqlServerDatabaseName(withDatabase('Server=h;Initial Catalog=master;User ID=sa;Password=x', 'y'))).toBe('y');
    expect(sqlServerDatabaseName(withDatabase('Server=h;Database=master', 'y'))).toBe('y');
  });

  it('invents no TLS setting: a string that says nothing of certificates still says nothing', () => {
    const derived = withDatabase('Server=h,1433;User ID=sa;Password=x', 'y');
    expect(derived).not.toMatch(/trust|encrypt/i);
    expect(withDatabase('mssql://sa:x@h:1433', 'y')).toBe('mssql://sa:x@h:1433/y');
  });

  it('refuses what is no SQL Server connection string without quoting it', () => {
    for (const text of ['mssql://sa:Secret-1@', 'User ID=sa;Password=Secret-1', 'Server=h;Password="Secret-1']) {
      let message = '';
      try {
        withDatabase(text, 'y');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain('Secret-1');
    }
  });
});
