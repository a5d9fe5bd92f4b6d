/**
 * Test hook (SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES=1, never in production): a Redshift Warehouse.Url is served by a
 * local PostgreSQL without TLS, with the Redshift warehouse's statements in their PostgreSQL spelling and the
 * batch files streamed in by COPY FROM STDIN instead of COPY from S3, and sessions that behave as Redshift where the
 * warehouse's SQL depends on it (quoted names folded to lower case, trailing blanks insignificant to text = and <>:
 * libs/redshift/warehouse redshift-on-postgres.ts). It lets the generic suite run the Redshift dialect's merges row
 * for row where no Redshift exists; every place it changes says so.
 */
export function redshiftServedByPostgresForTests(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES'] === '1';
}
