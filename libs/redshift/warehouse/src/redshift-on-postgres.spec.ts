import { foldQuotedIdentifiers } from './redshift-on-postgres';

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
