import { ChangesPurgedError, EngineError, ForeignTableError, OwnObjectMissingError, StaleDefinitionError, type DriverErrorMapper } from '@svc/engines';
import { RetryableWorkError } from '@svc/messaging';
import { BUS_FAILURE_REASON, classifyFailure, type FailureVerdict } from './failure-classifier';

const withCode = (code: string | number, message = 'failed') => Object.assign(new Error(message), { code });
const mssql = (number: number, message = 'failed') => Object.assign(new Error(message), { number });
const s3 = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
const http = (status: number) => Object.assign(new Error(`status ${status}`), { $metadata: { httpStatusCode: status } });

type Expected = Pick<FailureVerdict, 'retryable' | 'scope'>;
const retry: Expected = { retryable: true, scope: 'table' };
const stopTable: Expected = { retryable: false, scope: 'table' };
const stopReplication: Expected = { retryable: false, scope: 'replication' };

const subject = { endpoint: 'Staging', table: '[dbo].[users]' } as const;

describe('classifyFailure', () => {
  it.each<[string, unknown, Expected]>([
    // Transient: wait and try again.
    ['connection refused ECONNREFUSED', withCode('ECONNREFUSED'), retry],
    ['connection reset ECONNRESET', withCode('ECONNRESET'), retry],
    ['host not found ENOTFOUND', withCode('ENOTFOUND'), retry],
    ['PostgreSQL connection failure 08006', withCode('08006'), retry],
    ['serialization failure 40001', withCode('40001'), retry],
    ['deadlock 40P01', withCode('40P01'), retry],
    ['too many connections 53300', withCode('53300'), retry],
    ['query canceled / statement timeout 57014', withCode('57014'), retry],
    ['admin shutdown 57P01', withCode('57P01'), retry],
    ['crash shutdown 57P02', withCode('57P02'), retry],
    ['lock not available 55P03', withCode('55P03'), retry],
    ['SQL Server socket ESOCKET', withCode('ESOCKET'), retry],
    ['SQL Server timeout ETIMEOUT', withCode('ETIMEOUT'), retry],
    ['SQL Server deadlock 1205', mssql(1205, 'deadlock'), retry],
    ['SQL Server throttling 40501', mssql(40501, 'the service is currently busy'), retry],
    ['S3 throttling SlowDown 503', s3('SlowDown', 503), retry],
    ['S3 ServiceUnavailable 503', s3('ServiceUnavailable', 503), retry],
    ['plain HTTP 503', http(503), retry],
    ['S3 5xx', s3('Whatever', 502), retry],
    ['NATS timeout', withCode('TIMEOUT'), retry],
    ['unknown error', new Error('something odd'), retry],
    ['database missing 3D000 (being recreated)', withCode('3D000'), retry],
    [
      'a staging or warehouse control table or schema missing (recreated database)',
      new OwnObjectMissingError('staging table fences', { cause: withCode('42P01', 'relation "svc_staging.table_fences" does not exist') }),
      retry,
    ],
    ['a thrown string', 'something odd', retry],
    // Terminal for the whole replication: its database or bucket cannot be used.
    ['authentication failed 28P01', withCode('28P01'), stopReplication],
    ['invalid authorization 28000', withCode('28000'), stopReplication],
    ['SQL Server login failed ELOGIN', withCode('ELOGIN'), stopReplication],
    ['S3 InvalidAccessKeyId', s3('InvalidAccessKeyId', 403), stopReplication],
    ['S3 SignatureDoesNotMatch', s3('SignatureDoesNotMatch', 403), stopReplication],
    ['S3 AccessDenied', s3('AccessDenied', 403), stopReplication],
    ['S3 AllAccessDisabled', s3('AllAccessDisabled', 403), stopReplication],
    ['S3 NoSuchBucket', s3('NoSuchBucket', 404), stopReplication],
    ['S3 InvalidBucketName', s3('InvalidBucketName', 400), stopReplication],
    ['plain HTTP 403', http(403), stopReplication],
    // Terminal for one table.
    ['table dropped 42P01', withCode('42P01'), stopTable],
    ['column missing 42703', withCode('42703'), stopTable],
    ['permission denied on a table 42501', withCode('42501'), stopTable],
    ['value out of range 22003', withCode('22003'), stopTable],
    ['invalid text representation 22P02', withCode('22P02'), stopTable],
    ['not-null violation 23502', withCode('23502'), stopTable],
    ['SQL Server invalid object 208', mssql(208, 'invalid object'), stopTable],
    ['S3 missing object NoSuchKey 404', s3('NoSuchKey', 404), stopTable],
    ['plain HTTP 404', http(404), stopTable],
  ])('%s', (_name, error, expected) => {
    const { retryable, scope } = classifyFailure(error, subject);
    expect({ retryable, scope }).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432'), 'Staging: cannot reach the server (refused, timed out, unknown host or TLS failed)'],
    ['unknown host', withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal'), 'Staging: cannot reach the server (refused, timed out, unknown host or TLS failed)'],
    ['TLS', withCode('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), 'Staging: cannot reach the server (refused, timed out, unknown host or TLS failed)'],
    ['pg connect timeout', new Error('timeout expired'), 'Staging: cannot reach the server (refused, timed out, unknown host or TLS failed)'],
    ['authentication', withCode('28P01', 'password authentication failed for user "app"'), 'Staging: authentication failed'],
    ['permission', withCode('42501', 'permission denied for table users'), 'Staging: permission denied on [dbo].[users]'],
    ['missing table', withCode('42P01', 'relation "dbo.users" does not exist'), 'Staging: [dbo].[users] (or its schema or one of its columns) does not exist'],
    ['missing database', withCode('3D000', 'database "stg" does not exist'), 'Staging: the database does not exist'],
    ['bad value', withCode('22P02', 'invalid input syntax for type integer: "secret-value"'), 'Staging: a value does not fit its column or breaks a constraint in [dbo].[users] (values are not shown)'],
    ['deadlock', withCode('40P01', 'deadlock detected'), 'Staging: the server is busy or did not answer in time'],
    ['S3 denied', s3('AccessDenied', 403), 'Bucket: permission denied'],
    ['S3 no bucket', s3('NoSuchBucket', 404), 'Bucket: the bucket does not exist'],
    ['S3 throttled', s3('SlowDown', 503), 'Bucket: the server is busy or did not answer in time'],
    ['a NATS request timeout (the rows stream during an election), as the bus\'s, not staging\'s', withCode('TIMEOUT', 'TIMEOUT'), BUS_FAILURE_REASON],
    ['NATS no responders', withCode('503', '503'), BUS_FAILURE_REASON],
    ['unknown', new Error('something odd'), 'Staging: the operation failed (internal error)'],
    ['a string', 'plain text', 'Staging: the operation failed (internal error)'],
  ])('words %s by its class, without the server\'s words', (_name, error, reason) => {
    expect(classifyFailure(error, subject).reason).toBe(reason);
  });

  it('keeps what the server said, row values included, as the detail only', () => {
    const duplicate = withCode('23505', 'duplicate key value violates unique constraint "users_email_key": Key (email)=(alice@example.com) already exists');
    const verdict = classifyFailure(duplicate, subject);
    expect(verdict.reason).not.toContain('alice@example.com');
    expect(verdict.detail).toBe(duplicate.message);
  });

  it('never carries a password into the reason or the detail', () => {
    const verdict = classifyFailure(withCode('28P01', 'login failed for postgres://app:hunter2@db/x'), subject);
    expect(`${verdict.reason} ${verdict.detail ?? ''}`).not.toContain('hunter2');
  });

  it('bounds the detail', () => {
    expect(classifyFailure(new Error('x'.repeat(5000)), subject).detail).toHaveLength(1000);
  });

  it("keeps the service's own words: a retry it asked for, a purged watermark", () => {
    const table = { schema: 'dbo', name: 'users' };
    expect(classifyFailure(new RetryableWorkError('batch 3 is still not applied'), subject)).toEqual({ retryable: true, scope: 'table', reason: 'batch 3 is still not applied' });
    expect(classifyFailure(new ChangesPurgedError(table, '5', '9'), subject).reason).toBe(new ChangesPurgedError(table, '5', '9').message);
  });

  it('judges an engine error by its kind, whatever else it carries', () => {
    const table = { schema: 'public', name: 'orders' };
    expect(classifyFailure(new ChangesPurgedError(table, '5', '9'), subject).retryable).toBe(true);
    expect(classifyFailure(new StaleDefinitionError(table, 'a column was added'), subject).retryable).toBe(true);
  });

  it('stops the table, not in a retry loop, when its staging or warehouse table is not the service\'s', () => {
    const verdict = classifyFailure(new ForeignTableError('Warehouse', 'analytics.customers'), subject);
    expect({ retryable: verdict.retryable, scope: verdict.scope }).toEqual({ retryable: false, scope: 'table' });
    expect(verdict.reason).toContain('Warehouse table analytics.customers exists and was not created by this service');
  });

  it('words a classified engine error in its own text when the engine says the text is its own (a grant to give)', () => {
    class GrantMissing extends EngineError {
      readonly kind = 'permission-denied';
      override readonly serviceWorded = true;
    }
    const verdict = classifyFailure(new GrantMissing('Source: permission denied on [dbo].[users]: GRANT VIEW CHANGE TRACKING ON [dbo].[users] TO [etl]'), subject);
    expect(verdict).toEqual({ retryable: false, scope: 'table', reason: 'Source: permission denied on [dbo].[users]: GRANT VIEW CHANGE TRACKING ON [dbo].[users] TO [etl]' });
  });

  it('keeps what a service-worded error leaves out of its reason (a key\'s values) as the detail only', () => {
    class ValueRefused extends EngineError {
      readonly kind = 'invalid-data';
      override readonly serviceWorded = true;
      override readonly valueDetail = 'key (id=42)';
    }
    const verdict = classifyFailure(new ValueRefused('[dbo].[users], column born, key (id): infinity is refused'), subject);
    expect(verdict).toEqual({ retryable: false, scope: 'table', reason: '[dbo].[users], column born, key (id): infinity is refused', detail: 'key (id=42)' });
  });

  it('asks the engine mappers it is given, first answer wins, before the neutral rules', () => {
    const seen: unknown[] = [];
    const engineA: DriverErrorMapper = (error) => (seen.push(error), (error as { vendor?: string }).vendor === 'a' ? 'authentication-failed' : undefined);
    const engineB: DriverErrorMapper = (error) => ((error as { vendor?: string }).vendor !== undefined ? 'invalid-data' : undefined);
    const fromA = Object.assign(new Error('login'), { vendor: 'a', $metadata: { httpStatusCode: 503 } });
    const fromB = Object.assign(new Error('overflow'), { vendor: 'b' });

    expect(classifyFailure(fromA, subject, [engineA, engineB])).toMatchObject(stopReplication);
    expect(classifyFailure(fromB, subject, [engineA, engineB])).toMatchObject(stopTable);
    expect(classifyFailure(fromB, subject, [])).toMatchObject(retry);
    expect(seen).toEqual([fromA, fromB]);
  });
});
