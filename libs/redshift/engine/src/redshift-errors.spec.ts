import type { EngineErrorKind } from '@svc/engines';
import { redshiftErrorKind } from './redshift-errors';

const redshift = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('redshiftErrorKind', () => {
  it.each<[string, unknown, EngineErrorKind]>([
    ['serializable isolation violation (1023)', redshift('XX000', '1023 DETAIL: Serializable isolation violation on table - 123456, transactions forming the cycle are: 1, 2'), 'transient'],
    ['a serialization failure by SQLSTATE', redshift('40001', 'could not serialize access'), 'transient'],
    // "ERROR:1023 DETAIL: Serializable isolation violation on table in Redshift" (c_serial_isolation-serializable-isolation-troubleshooting.html),
    // under SERIALIZABLE and SNAPSHOT isolation alike: psql's rendering of the message 1023 with the words as DETAIL.
    ['error 1023 with its words as DETAIL', Object.assign(redshift('XX000', '1023'), { detail: 'Serializable isolation violation on table - 123456, transactions forming the cycle are: 1, 2 (pid:42)' }), 'transient'],
    // A write conflict under snapshot isolation in PostgreSQL's words ("could not serialize access due to concurrent update",
    // https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ), should a cluster answer so as an internal error.
    ['a snapshot write conflict in PostgreSQL\'s words, as an internal error', redshift('XX000', 'could not serialize access due to concurrent update'), 'transient'],
    ['disk full', redshift('53100', 'Disk Full'), 'transient'],
    ['disk full as an internal error', redshift('XX000', 'error:  Disk full'), 'transient'],
    ['too many connections', redshift('53300', 'connection limit "500" exceeded for non-bootstrap users'), 'transient'],
    ['password authentication failed', redshift('28000', 'password authentication failed for user "loader"'), 'authentication-failed'],
    ['missing schema', redshift('3F000', 'schema "dw" does not exist'), 'object-missing'],
    ['missing table', redshift('42P01', 'relation "dw.orders" does not exist'), 'object-missing'],
    ['COPY refused by S3', redshift('XX000', 'S3ServiceException:Access Denied,Status 403,Error AccessDenied'), 'permission-denied'],
    ['COPY with a role it cannot assume', redshift('XX000', 'User arn:aws:redshift:us-west-2:123:dbuser:c/loader is not authorized to perform: sts:AssumeRole on resource'), 'permission-denied'],
    ['COPY with a missing file', redshift('XX000', 'S3ServiceException:The specified key does not exist.,Status 404,Error NoSuchKey'), 'object-missing'],
    ['COPY with a value that does not fit', redshift('XX000', "Load into table 'svc_sys_load_rows' failed. Check 'stl_load_errors' system table for details."), 'invalid-data'],
    ['COPY with a value that does not fit, on Serverless', redshift('XX000', "Check 'sys_load_error_detail' system table for details."), 'invalid-data'],
    // Two loaders creating one schema at the same moment (issue 21, item 26): the step runs again and finds it made.
    ['a race creating a schema on the catalog', redshift('23505', 'duplicate key value violates unique constraint "pg_namespace_nspname_index"'), 'transient'],
    ['permission denied on a table', redshift('42501', 'permission denied for relation orders'), 'permission-denied'],
    ['statement timeout', redshift('57014', 'Query (123) cancelled on user\'s request'), 'transient'],
  ])('%s is %s', (_name, error, kind) => {
    expect(redshiftErrorKind(error)).toBe(kind);
  });

  it.each([['an internal error of no known kind (retried, then reported)', redshift('XX000', 'something unexpected')], ['a plain error', new Error('x')], ['an mssql error', Object.assign(new Error('x'), { number: 1205, code: 'EREQUEST' })], ['undefined', undefined]])(
    'leaves %s to others',
    (_name, error) => {
      expect(redshiftErrorKind(error)).toBeUndefined();
    },
  );
});
