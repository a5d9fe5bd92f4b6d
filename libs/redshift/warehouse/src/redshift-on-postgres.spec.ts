import { foldQuotedIdentifiers } from './redshift-on-postgres';
import { translateCollations } from './redshift-on-postgres-collation';

/**
 * Redshift, while enable_case_sensitive_identifier is off: "ASCII letters in standard and delimited identifiers are
 * case-insensitive and are folded to lowercase in the database" (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html).
 * String constants are values, not names, and keep their case.
 */
describe('foldQuotedIdentifiers (the test hook folds delimited identifiers as Redshift does)', () => {
  it.each([
    ['CREATE TABLE "Sales"."Order_Lines" ("Line" INT)', 'CREATE TABLE "sales"."order_lines" ("line" INT)'],
    ['SELECT "A""B" FROM t', 'SELECT "a""b" FROM t'],
    ['SELECT "Ünïcode_X"', 'SELECT "Ünïcode_x"'],
  ])('folds the ASCII letters of quoted names: %s', (statement, expected) => {
    expect(foldQuotedIdentifiers(statement)).toBe(expected);
  });

  it.each([
    [`SELECT 1 FROM "T" WHERE name = 'Mixed "Quoted" Case'`, `SELECT 1 FROM "t" WHERE name = 'Mixed "Quoted" Case'`],
    [`SELECT 'it''s "X"', "Y"`, `SELECT 'it''s "X"', "y"`],
    [`SELECT E'a\\' "X"', "Y"`, `SELECT E'a\\' "X"', "y"`],
    [`SELECT $$ "Body" $$, $tag$ "Tagged" $$ $tag$, "Z"`, `SELECT $$ "Body" $$, $tag$ "Tagged" $$ $tag$, "z"`],
    [`SELECT $1, "P" FROM t WHERE a = $2`, `SELECT $1, "p" FROM t WHERE a = $2`],
    [`SELECT 1 -- "Comment"\n, "C"`, `SELECT 1 -- "Comment"\n, "c"`],
    [`SELECT /* "Outer" /* "Inner" */ "Still" */ "D"`, `SELECT /* "Outer" /* "Inner" */ "Still" */ "d"`],
    [`COPY "Load" ("Op", "Key") FROM STDIN (FORMAT csv, NULL '\\N')`, `COPY "load" ("op", "key") FROM STDIN (FORMAT csv, NULL '\\N')`],
  ])('leaves literals, dollar quotes, parameters and comments as they are: %s', (statement, expected) => {
    expect(foldQuotedIdentifiers(statement)).toBe(expected);
  });

  it('leaves a statement without quoted names unchanged', () => {
    const statement = `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`;
    expect(foldQuotedIdentifiers(statement)).toBe(statement);
  });
});

/*
 * A database created COLLATE CASE_INSENSITIVE: "The COLLATE clause specifies the default collation for all CHAR and
 * VARCHAR columns in the database" (https://docs.aws.amazon.com/redshift/latest/dg/r_CREATE_DATABASE.html); a column's
 * `COLLATE CASE_SENSITIVE | COLLATE CASE_INSENSITIVE` (r_CREATE_TABLE_NEW.html) and `COLLATE(string, 'case_sensitive'
 * | 'cs' | 'case_insensitive' | 'ci')` (r_COLLATE.html) override it.
 */
describe('translateCollations (the double is a case-insensitive database)', () => {
  const CI = 'svc_redshift_double.case_insensitive';

  it.each([
    ['CREATE TABLE "s"."t" ("k" VARCHAR(160) NOT NULL, "n" INTEGER, "u" CHAR(36))', `CREATE TABLE "s"."t" ("k" VARCHAR(160) COLLATE ${CI} NOT NULL, "n" INTEGER, "u" CHAR(36) COLLATE ${CI})`],
    ['CREATE TEMP TABLE "l" ("op" CHAR(1) NOT NULL, "b" text)', `CREATE TEMP TABLE "l" ("op" CHAR(1) COLLATE ${CI} NOT NULL, "b" text)`],
    ['CREATE TABLE t (a character varying(10), b varchar)', `CREATE TABLE t (a character varying(10) COLLATE ${CI}, b varchar COLLATE ${CI})`],
    ['ALTER TABLE "s"."t" ADD COLUMN "c" VARCHAR(65535)', `ALTER TABLE "s"."t" ADD COLUMN "c" VARCHAR(65535) COLLATE ${CI}`],
    ['ALTER TABLE "s"."t" ALTER COLUMN "c" TYPE VARCHAR(400)', `ALTER TABLE "s"."t" ALTER COLUMN "c" TYPE VARCHAR(400) COLLATE ${CI}`],
  ])('gives the CHAR and VARCHAR columns a declaration makes the database collation: %s', (statement, expected) => {
    expect(translateCollations(statement)).toBe(expected);
  });

  it.each([
    ['CREATE TABLE T (col1 Varchar(20) COLLATE case_sensitive)', 'CREATE TABLE T (col1 Varchar(20) COLLATE "C")'],
    ['CREATE TABLE A (col1 Varchar(20) COLLATE CASE_INSENSITIVE)', `CREATE TABLE A (col1 Varchar(20) COLLATE ${CI})`],
    ["SELECT * FROM A WHERE COLLATE(col1, 'case_sensitive') = 'john'", `SELECT * FROM A WHERE ((col1) COLLATE "C") = 'john'`],
    ["SELECT COLLATE(COLLATE(a, 'cs'), 'ci'), COLLATE(f(a, b), 'cs')", `SELECT ((((a) COLLATE "C")) COLLATE ${CI}), ((f(a, b)) COLLATE "C")`],
  ])('translates the collations Redshift names: %s', (statement, expected) => {
    expect(translateCollations(statement)).toBe(expected);
  });

  it('compares a text key byte for byte in the key constraint, which Redshift does not enforce', () => {
    expect(translateCollations('CREATE TABLE "t" ("k" VARCHAR(8) NOT NULL, "n" BIGINT NOT NULL, PRIMARY KEY ("k", "n"))')).toBe(
      `CREATE TABLE "t" ("k" VARCHAR(8) COLLATE ${CI} NOT NULL, "n" BIGINT NOT NULL, EXCLUDE USING btree ("k" COLLATE "C" WITH OPERATOR(pg_catalog.=), "n" WITH OPERATOR(pg_catalog.=)))`,
    );
    const numeric = 'CREATE TABLE "t" ("n" BIGINT NOT NULL, "k" VARCHAR(8), PRIMARY KEY ("n"))';
    expect(translateCollations(numeric)).toBe(`CREATE TABLE "t" ("n" BIGINT NOT NULL, "k" VARCHAR(8) COLLATE ${CI}, PRIMARY KEY ("n"))`);
  });

  it.each([
    ["SELECT COLLATE(a, 'de_DE')"],
    ['SELECT COLLATE(a)'],
    ["SELECT COLLATE(a, 'cs', 'ci')"],
    ['CREATE TABLE t (a VARCHAR(4) COLLATE "C")'],
    ['CREATE TABLE t (a VARCHAR(4) COLLATE unicode)'],
    ['SELECT a COLLATE case_sensitive FROM t'],
    ['CREATE TABLE t (a VARCHAR(4) PRIMARY KEY)'],
    ['ALTER TABLE t ADD COLUMN a VARCHAR(4) UNIQUE'],
  ])('refuses what it cannot map: %s', (statement) => {
    expect(() => translateCollations(statement)).toThrow('the Redshift double cannot map');
  });

  it('leaves casts, literals, comments and other statements as they are', () => {
    for (const statement of [
      `SELECT CAST($1 AS VARCHAR(8)), 'x'::varchar, 'COLLATE(a, ''xx'')' -- COLLATE(b, 'yy')`,
      `CREATE TABLE t AS SELECT CAST(a AS VARCHAR(4)) FROM u`,
      `INSERT INTO t (a) VALUES ('varchar')`,
      `LOCK "s"."t"`,
    ]) {
      expect(translateCollations(statement)).toBe(statement);
    }
  });
});
