import { rowDigestText, ROW_DIGEST_HEX_DIGITS, type ChecksumColumn } from '@svc/engines';
import { INTERCHANGE_TEXT_SETTINGS_SQL, POSTGRES_CHECKSUM_DIALECT, postgresColumnType } from '@svc/postgres/common';
import { SQLSERVER_TYPE_SAMPLES, columnPlan, planOfSourceType, type ColumnPlan } from '@svc/sqlserver/common';
import { CASES, VALUES, interchangeText, tsqlCanonical, tsqlDigest } from './sqlserver-checksum-values';
import { Client } from 'pg';

/*
 * Validation compares digests computed by two engines (issue 24): SQL Server's are only right if the T-SQL canonical
 * text of every SQL Server type equals, value for value, what PostgreSQL's warehouse dialect computes for the value the
 * reader sent it. SQL Server cannot run here: its side runs on the T-SQL expression double, which evaluates each
 * expression as Microsoft documents (libs/sqlserver/common tsql-expression.double.ts cites each page, among them
 * https://learn.microsoft.com/en-us/sql/t-sql/functions/hashbytes-transact-sql and
 * https://learn.microsoft.com/en-us/sql/t-sql/functions/cast-and-convert-transact-sql); PostgreSQL's side is a real
 * PostgreSQL, the value loaded from the reader's interchange text into the type the PostgreSQL warehouse declares.
 */

describe('SQL Server canonical texts equal PostgreSQL warehouse canonical texts, value for value (T-SQL on the double, PostgreSQL real)', () => {
  const postgres = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });

  beforeAll(async () => {
    await postgres.connect();
    await postgres.query(`begin read only;\n${INTERCHANGE_TEXT_SETTINGS_SQL}`);
  });

  afterAll(async () => {
    await postgres.query('rollback').catch(() => undefined);
    await postgres.end();
  });

  /** PostgreSQL's canonical text and digest of a row loaded from the reader's texts into the warehouse's types. */
  async function postgresSide(plans: readonly ColumnPlan[], fields: readonly (string | null)[]): Promise<{ texts: (string | null)[]; digest: string }> {
    const columns = plans.map((plan, index): ChecksumColumn => {
      const declaredType = postgresColumnType(plan.portableType).type;
      return { sql: `t.c${index}`, type: plan.portableType, declaredType };
    });
    const loaded = columns.map((column, index) => `CAST($${index + 1}::text AS ${column.declaredType}) AS c${index}`).join(', ');
    const texts = columns.map((column, index) => `${POSTGRES_CHECKSUM_DIALECT.canonicalText(column)} AS text_${index}`).join(', ');
    const digest = POSTGRES_CHECKSUM_DIALECT.hexPrefixValue(POSTGRES_CHECKSUM_DIALECT.md5(rowDigestText(POSTGRES_CHECKSUM_DIALECT, columns)), ROW_DIGEST_HEX_DIGITS);
    const [row] = (await postgres.query<Record<string, string | null>>(`SELECT ${texts}, (${digest})::text AS digest FROM (SELECT ${loaded}) t`, [...fields])).rows;
    if (row === undefined) throw new Error('PostgreSQL returned no row');
    return { texts: columns.map((_, index) => row[`text_${index}`] ?? null), digest: row['digest'] ?? '' };
  }

  it.each(CASES.map((entry) => [`${entry.sourceType} #${entry.index}${entry.value.type === 'null' ? ' (NULL)' : ''}`, entry] as const))('%s', async (_name, { sourceType, value }) => {
    const plan = planOfSourceType('c', sourceType);
    const expected = await postgresSide([plan], [interchangeText(plan, value)]);
    expect({ text: tsqlCanonical(plan, value), digest: tsqlDigest([plan], [value]) }).toEqual({ text: expected.texts[0], digest: expected.digest });
  });

  it('digests a row of every type alike: fields, separators, escapes, NULLs and UTF-8 bytes', async () => {
    for (const pick of [0, 1]) {
      const entries = Object.entries(VALUES).map(([sourceType, values]) => ({ plan: planOfSourceType('c', sourceType), value: values[pick] ?? ({ type: 'null' } as const) }));
      const plans = entries.map((entry) => entry.plan);
      const expected = await postgresSide(plans, entries.map((entry) => interchangeText(entry.plan, entry.value)));
      expect(tsqlDigest(plans, entries.map((entry) => entry.value))).toBe(expected.digest);
    }
  });

  it('every SQL Server type the source reads has values here', () => {
    const covered = new Set(Object.keys(VALUES).map((sourceType) => planOfSourceType('c', sourceType).sourceType));
    const read = SQLSERVER_TYPE_SAMPLES.filter((sample) => !sample.column.isClrType || ['geometry', 'geography', 'hierarchyid'].includes(sample.column.typeName));
    expect(read.map((sample) => columnPlan(sample.column).sourceType).filter((sourceType) => !covered.has(sourceType))).toEqual([]);
  });
});
