import { Portable, type TableDefinition } from '@svc/contracts';
import { redactText } from '@svc/logging';
import { copySql } from './redshift-copy';
import { redshiftLayout, type RedshiftLayout } from './redshift-layout';
import {
  TABLE_COLUMNS_SQL,
  addColumnSql,
  batchLoadedSql,
  createControlTablesSql,
  createLoadTableSql,
  createSchemaSql,
  createShadowSql,
  createTargetSql,
  emptyShadowSql,
  forgetBatchesSql,
  lockSchemaDdlSql,
  mergeChangesSql,
  mergeSeedSql,
  namedByEarlierVersionSql,
  ownedTableSql,
  recordBatchSql,
  recordOwnedTableSql,
} from './redshift-sql';
import {
  TABLE_CONTROLS_SQL,
  adoptSharedControlSql,
  createTableControlSql,
  currentSeedSql,
  fenceEpochSql,
  forgetTableBatchesSql,
  insertFenceSql,
  lockTableControlSql,
  raiseFenceSql,
  recordSeedStartSql,
  recordTableBatchSql,
  tableBatchLoadedSql,
  tableControlName,
} from './redshift-table-control';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';
import { advanceClockSql, loadStampSql, stampLiteral } from './redshift-load-stamp';

// Generated SQL is reviewed as text: these snapshots are the place to read it. No Redshift runs in CI.
const orders: TableDefinition = {
  table: { schema: 'sales', name: 'Orders' },
  columns: [
    { name: 'id', sourceType: 'bigint', portableType: Portable.bigint(), nullable: false },
    { name: 'placed', sourceType: 'datetimeoffset(7)', portableType: Portable.timestamp(6, true), nullable: false },
    { name: 'amount', sourceType: 'money', portableType: Portable.decimal(19, 4), nullable: true },
    { name: 'note', sourceType: 'nvarchar(max)', portableType: Portable.text(), nullable: true },
    { name: 'code', sourceType: 'nchar(3)', portableType: Portable.char(3), nullable: true },
    { name: 'blob', sourceType: 'varbinary(max)', portableType: Portable.binary(), nullable: true },
    { name: 'uid', sourceType: 'uniqueidentifier', portableType: Portable.uuid(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};
const keyOnly: TableDefinition = { ...orders, table: { schema: 'dbo', name: 'tags' }, columns: [orders.columns[0]], primaryKey: ['id'] };
const keyless: TableDefinition = { ...orders, table: { schema: 'public', name: 'audit_log' }, primaryKey: [] };

const type1 = redshiftLayout(orders, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: true }, TEST_BARE_NAME_SCHEMAS);
const type2 = redshiftLayout(orders, { schema: 'hist', scdType: 'Type2', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);
const plain = redshiftLayout(keyless, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);
const type2KeyOnly = redshiftLayout(keyOnly, { schema: 'hist', scdType: 'Type2', addUpdateTimestamp: true }, TEST_BARE_NAME_SCHEMAS);

/** A load's stamp as the statement after its lock answers it (redshift-load-stamp.ts). */
const STAMP = stampLiteral('2024-05-22 12:34:56.789012');

const accessKey = { accessType: 'AccessKey', accessKeyId: 'AKIAEXAMPLEKEY000001', secretAccessKey: 'wJalr/Secret+Key\\with\'quote' } as const;
const iamRole = { accessType: 'IAMRole', accountId: '123456789012', roleName: 'svc-loader' } as const;
const files = { bucket: 'my-bucket', manifestKey: 'warehouse/r1/sales.Orders/b1/manifest.json', region: 'us-west-2' };

/** Every statement on a table's own control table. */
function tableControlStatements(layout: RedshiftLayout): string[] {
  return [
    createTableControlSql(layout),
    ...adoptSharedControlSql(layout),
    lockTableControlSql(layout),
    fenceEpochSql(layout),
    raiseFenceSql(layout),
    insertFenceSql(layout),
    tableBatchLoadedSql(layout),
    recordTableBatchSql(layout),
    forgetTableBatchesSql(layout.schema, tableControlName(layout.target)),
    currentSeedSql(layout),
    ...recordSeedStartSql(layout),
    ...advanceClockSql(layout, STAMP),
    TABLE_CONTROLS_SQL,
  ];
}

function everyStatement(layout: RedshiftLayout): string[] {
  return [
    createSchemaSql(layout.schema),
    ...createControlTablesSql(layout.schema),
    lockSchemaDdlSql(layout.schema),
    ...tableControlStatements(layout),
    batchLoadedSql(layout.schema),
    recordBatchSql(layout.schema),
    forgetBatchesSql(layout.schema),
    ownedTableSql(layout.schema),
    ...recordOwnedTableSql(layout.schema),
    namedByEarlierVersionSql(layout.schema),
    TABLE_COLUMNS_SQL,
    createTargetSql(layout),
    createShadowSql(layout),
    addColumnSql(layout.qualifiedTarget, layout.columns[layout.columns.length - 1]),
    ...createLoadTableSql(layout),
    emptyShadowSql(layout),
    ...(layout.history === 'plain' ? [] : mergeChangesSql(layout, STAMP)),
    ...mergeSeedSql(layout, STAMP),
    copySql('"svc_sys_load_rows"', ['svc_op', 'id'], files, accessKey).text,
    copySql(layout.qualifiedShadow, ['id'], files, iamRole).text,
  ];
}

/** What Redshift lacks or does differently, each with why it must not appear in generated SQL. */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/\bON\s+CONFLICT\b/i, 'no upsert in Redshift'],
  [/\bIS\s+(NOT\s+)?DISTINCT\s+FROM\b/i, 'Redshift has no IS DISTINCT FROM'],
  [/\b(big)?serial\b/i, 'no serial types: IDENTITY(1,1)'],
  [/\b(jsonb|bytea|uuid|text\[\])\b(?!\s*\()|\binterval\b(?!\s*')/i, 'types Redshift lacks (an interval literal is no type)'],
  [/\bpg_advisory|\bhashtext/i, 'no advisory locks'],
  [/\bTRUNCATE\b/i, 'TRUNCATE commits the transaction in Redshift'],
  [/\bADD\s+COLUMN\b[^;]*,\s*ADD\b/i, 'one column per ALTER TABLE ADD'],
  [/\bON\s+COMMIT\b/i, 'no ON COMMIT for temporary tables'],
  [/\bRETURNING\b/i, 'no RETURNING'],
  [/\bFOR\s+UPDATE\b|\bSKIP\s+LOCKED\b/i, 'no row locks'],
  [/\bnow\(\)/i, 'SYSDATE is the load time'],
  [/\bGETDATE\s*\(/i, "GETDATE() is the statement's start in whole seconds: a load's rows get its stamp (redshift-load-stamp.ts)"],
  [/\bCREATE\s+(UNIQUE\s+)?INDEX\b/i, 'no indexes'],
  [/\bGENERATED\b/i, 'no generated columns'],
  [/(DELETE\s+FROM|UPDATE)\s+"[^"]*"\."[^"]*"\s+AS\b/i, 'no alias on the target of DELETE or UPDATE'],
  [/::\s*(text|regclass)\b/i, 'no text or regclass casts'],
];

describe('generated Redshift SQL', () => {
  it.each([
    ['Type1 with AddUpdateTimestamp', type1],
    ['Type2', type2],
    ['a table without a key', plain],
    ['Type2 of a key-only table', type2KeyOnly],
  ])('uses nothing Redshift lacks: %s', (_name, layout) => {
    for (const statement of everyStatement(layout)) {
      for (const [pattern, why] of FORBIDDEN) {
        if (pattern.test(statement)) throw new Error(`${why}:\n${statement}`);
      }
    }
  });

  it('the forbidden-construct check catches each construct', () => {
    const offenders = [
      'INSERT INTO t VALUES (1) ON CONFLICT (id) DO NOTHING',
      'SELECT a IS DISTINCT FROM b',
      'CREATE TABLE t (id bigserial)',
      'CREATE TABLE t (b bytea)',
      'SELECT pg_advisory_xact_lock(1)',
      'TRUNCATE t',
      'ALTER TABLE t ADD COLUMN a int, ADD COLUMN b int',
      'CREATE TEMP TABLE t (a int) ON COMMIT DROP',
      'UPDATE "s"."t" AS x SET a = 1',
      'SELECT now()',
      'UPDATE t SET valid_to = GETDATE()',
    ];
    for (const offender of offenders) expect(FORBIDDEN.some(([pattern]) => pattern.test(offender))).toBe(true);
  });

  it('creates schema, control tables, target, shadow and load table (Type1, Type2, keyless)', () => {
    const ddl = (layout: RedshiftLayout) => [createTargetSql(layout), createShadowSql(layout), ...createLoadTableSql(layout)].join(';\n\n');
    expect([createSchemaSql('dw'), ...createControlTablesSql('dw'), TABLE_COLUMNS_SQL].join(';\n\n')).toMatchSnapshot();
    expect(ddl(type1)).toMatchSnapshot();
    expect(ddl(type2)).toMatchSnapshot();
    expect(ddl(plain)).toMatchSnapshot();
  });

  it('spells VARBYTE and IDENTITY the PostgreSQL way only for the PostgreSQL-executed pair', () => {
    expect(createTargetSql(type2, 'postgres')).toContain('"blob" text');
    expect(createTargetSql(type2, 'postgres')).toContain('GENERATED BY DEFAULT AS IDENTITY');
    expect(createTargetSql(type2)).toContain('"blob" VARBYTE(1024000)');
    expect(createTargetSql(type2)).toContain('BIGINT IDENTITY(1,1)');
  });

  it('adds one column per statement', () => {
    expect(addColumnSql(type1.qualifiedTarget, type1.columns[3])).toBe('ALTER TABLE "dw"."sales_Orders" ADD COLUMN "note" VARCHAR(65535)');
  });

  it("fences epochs, logs batches and records seeds in the table's own control table, under its lock", () => {
    expect(tableControlStatements(type1).join(';\n\n')).toMatchSnapshot();
  });

  it("logs every batch in the schema's batch log too, and locks the schema only to change its tables", () => {
    expect([lockSchemaDdlSql('dw'), batchLoadedSql('dw'), recordBatchSql('dw'), forgetBatchesSql('dw')].join(';\n\n')).toMatchSnapshot();
  });

  it('records the tables it creates, and reads what earlier versions named', () => {
    expect([ownedTableSql('dw'), ...recordOwnedTableSql('dw'), namedByEarlierVersionSql('dw')].join(';\n\n')).toMatchSnapshot();
  });

  it('merges change batches: Type1, Type2', () => {
    expect(mergeChangesSql(type1, STAMP).join(';\n\n')).toMatchSnapshot();
    expect(mergeChangesSql(type2, STAMP).join(';\n\n')).toMatchSnapshot();
    expect(mergeChangesSql(type2KeyOnly, STAMP).join(';\n\n')).toMatchSnapshot();
    expect(() => mergeChangesSql(plain, STAMP)).toThrow('has no primary key');
  });

  it('compares text keys and values case-sensitively, both sides, and by their length in bytes', () => {
    // A database created COLLATE CASE_INSENSITIVE makes every CHAR and VARCHAR column case-insensitive (r_CREATE_DATABASE.html).
    const codes: TableDefinition = { ...orders, table: { schema: 'dbo', name: 'codes' }, columns: [orders.columns[4], orders.columns[3], orders.columns[0]], primaryKey: ['code'] };
    const layout = redshiftLayout(codes, { schema: 'dw', scdType: 'Type2', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);
    const key = `(COLLATE(svc_sys_t."code", 'case_sensitive') = COLLATE("svc_sys_load_rows"."code", 'case_sensitive') AND OCTET_LENGTH(svc_sys_t."code") = OCTET_LENGTH("svc_sys_load_rows"."code"))`;
    const [unchanged] = mergeChangesSql(layout, STAMP);
    expect(unchanged).toContain(key);
    expect(unchanged).toContain(`COLLATE(svc_sys_t."note", 'case_sensitive') = COLLATE("svc_sys_load_rows"."note", 'case_sensitive')`);
    expect(unchanged).toContain(`svc_sys_t."id" = "svc_sys_load_rows"."id"`);
    const merges = [...mergeChangesSql(layout, STAMP), ...mergeSeedSql(layout, STAMP)].join('\n');
    expect(merges.match(/\S+\."(code|note)" =/g)).toBeNull();
    expect(merges.match(/COLLATE\(\S+\."code", 'case_sensitive'\) = COLLATE\(\S+\."code", 'case_sensitive'\)/g)).toHaveLength(6);
  });

  it("stamps a load after its table's lock: the greatest of SYSDATE, GETDATE() and the table's last stamp plus a microsecond", () => {
    const stamp = loadStampSql(type2, 'redshift');
    const everywhereButGetdate = FORBIDDEN.filter(([pattern]) => !pattern.test('GETDATE()'));
    for (const statement of [stamp, ...advanceClockSql(type2, STAMP)]) {
      for (const [pattern, why] of everywhereButGetdate) {
        if (pattern.test(statement)) throw new Error(`${why}:\n${statement}`);
      }
    }
    expect([stamp, ...advanceClockSql(type2, STAMP)].join(';\n\n')).toMatchSnapshot();
    expect(stamp).toContain(`GREATEST(SYSDATE, GETDATE(), MAX(recorded_at) + INTERVAL '1 microsecond')`);
    expect(loadStampSql(type2, 'postgres')).toContain('GREATEST(LOCALTIMESTAMP, GETDATE(),');
    expect(FORBIDDEN.some(([pattern]) => pattern.test(`SELECT caldate + interval '1 second'`))).toBe(false);
    expect(FORBIDDEN.some(([pattern]) => pattern.test('CREATE TABLE t (d interval)'))).toBe(true);
  });

  it.each([[undefined], [''], ['2024-05-22 12:34:56'], ["2024-05-22 12:34:56.789012' AS TIMESTAMP); DROP TABLE t; --"], ['Wed May 22 12:34:56.789012 2024 UTC']])(
    'takes no answer for the stamp but its own TO_CHAR text: %s',
    (answer) => {
      expect(() => stampLiteral(answer)).toThrow("for the load's time");
    },
  );

  it('merges a completed seed: Type1, Type2, keyless', () => {
    expect([emptyShadowSql(type1), ...mergeSeedSql(type1, STAMP)].join(';\n\n')).toMatchSnapshot();
    expect(mergeSeedSql(type2, STAMP).join(';\n\n')).toMatchSnapshot();
    expect(mergeSeedSql(plain, STAMP).join(';\n\n')).toMatchSnapshot();
  });

  it('copies from the manifest with each access type, and only the redacted text holds no secret', () => {
    const withKeys = copySql('"svc_sys_load_rows"', ['svc_op', 'id', 'note'], files, accessKey);
    expect(withKeys.redacted).toMatchSnapshot();
    expect(withKeys.text).toContain("SECRET_ACCESS_KEY 'wJalr/Secret+Key\\\\with''quote'");
    expect(withKeys.redacted).not.toContain('wJalr');
    expect(withKeys.redacted).not.toContain('AKIAEXAMPLEKEY000001');
    expect(copySql('"hist"."svc_seed_Orders"', ['id'], files, iamRole).text).toMatchSnapshot();
  });

  it.each([
    ['us-west-2', 'arn:aws:iam::123456789012:role/svc-loader'],
    ['cn-north-1', 'arn:aws-cn:iam::123456789012:role/svc-loader'],
    ['cn-northwest-1', 'arn:aws-cn:iam::123456789012:role/svc-loader'],
    ['us-gov-west-1', 'arn:aws-us-gov:iam::123456789012:role/svc-loader'],
    ['us-gov-east-1', 'arn:aws-us-gov:iam::123456789012:role/svc-loader'],
    ['us-iso-east-1', 'arn:aws-iso:iam::123456789012:role/svc-loader'],
    ['us-isob-east-1', 'arn:aws-iso-b:iam::123456789012:role/svc-loader'],
  ])('names the role in the partition of the bucket region %s', (region, arn) => {
    expect(copySql('"t"', ['id'], { ...files, region }, iamRole).text).toContain(`IAM_ROLE '${arn}'`);
  });

  it('redacts credentials from any text that might quote a COPY', () => {
    const error = `error in COPY t FROM 's3://b/m' ACCESS_KEY_ID 'AKIAEXAMPLEKEY000001' SECRET_ACCESS_KEY 'it''s secret' MANIFEST; credentials 'aws_access_key_id=AKIA1;aws_secret_access_key=s3cr3t'`;
    const redacted = redactText(error);
    for (const secret of ['AKIAEXAMPLEKEY000001', "it''s secret", 'AKIA1', 's3cr3t']) expect(redacted).not.toContain(secret);
    expect(redacted).toContain("SECRET_ACCESS_KEY '[redacted]'");
  });
});
