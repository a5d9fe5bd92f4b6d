import { REPLICATION_DEFAULTS, type ReplicationConfig } from '@svc/contracts';
import { parsedRequest, sampleCreateRequest } from '../testing/requests';
import { mergeAlterRequest } from './alter-merge';
import { newReplicationConfig } from './new-replication-config';

const ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const stored: ReplicationConfig = newReplicationConfig(sampleCreateRequest(), 'sales');
const schedule = { noPkTablesToInclude: 'All', pkTablesToInclude: 'All', fromTime: '01:00:00 AM', toTime: '03:00:00 AM', repeatIntervalInMinutes: 60 } as const;

function merge(tree: Record<string, unknown>, current: ReplicationConfig = stored): ReturnType<typeof mergeAlterRequest> {
  return mergeAlterRequest(current, parsedRequest('AlterWarehouseReplication', { replicationId: ID, ...tree }));
}

function merged(tree: Record<string, unknown>, current?: ReplicationConfig): ReplicationConfig {
  const result = merge(tree, current);
  if (!result.ok) throw new Error(result.messages.join('\n'));
  return result.config;
}

describe('mergeAlterRequest', () => {
  it('changes nothing when only the id is given', () => {
    expect(merged({})).toEqual(stored);
  });

  it('maps SourceConnectionString to the source and DestinationConnectionString to staging', () => {
    const config = merged({ sourceConnectionString: 'postgres://app:new@db2/sales', destinationConnectionString: 'postgres://s:new@stg2/sales' });
    expect(config.source).toEqual({ ...stored.source, connectionString: 'postgres://app:new@db2/sales' });
    expect(config.staging).toEqual({ ...stored.staging, connectionString: 'postgres://s:new@stg2/sales' });
  });

  it('replaces top-level settings and leaves the others', () => {
    const config = merged({ replicationName: 'renamed', parallelTablesLimit: '4', isContinuous: 'false', repeatIntervalInMinutes: '15', tablesToInclude: '[dbo].[a],[dbo].[b]' });
    expect(config).toEqual({
      ...stored,
      replicationName: 'renamed',
      parallelTablesLimit: 4,
      isContinuous: false,
      repeatIntervalInMinutes: 15,
      tablesToInclude: ['[dbo].[a]', '[dbo].[b]'],
    });
    expect(config.changeTrackingBatchLimit).toBe(REPLICATION_DEFAULTS.changeTrackingBatchLimit);
  });

  it('merges warehouse members one by one', () => {
    const config = merged({ warehouse: { bucketName: 'other-bucket', secretKey: 'secret-again', timeoutInMins: 90 } });
    expect(config.warehouse).toEqual({ ...stored.warehouse, bucketName: 'other-bucket', secretKey: 'secret-again', timeoutInMins: 90 });
  });

  describe('stored secrets never follow a redirect (issue 19)', () => {
    it.each([
      [{ url: 'attacker.example.com:5439' }, '{Warehouse\\Url}'],
      [{ username: 'someone_else' }, '{Warehouse\\Username}'],
      [{ databaseName: 'other' }, '{Warehouse\\DatabaseName}'],
    ])('refuses %j without the password given again', (change, named) => {
      const result = merge({ warehouse: change });
      expect(result).toEqual({ ok: false, messages: expect.arrayContaining([expect.stringContaining(`{Warehouse\\Password}: is required when ${named} changes`)]) as unknown });
    });

    it.each([[{ bucketName: 'attacker-bucket' }], [{ regionEndpoint: 'eu-west-1' }], [{ accessKey: 'AKIAOTHERKEY00000000' }]])(
      'refuses %j without the secret key given again',
      (change) => {
        const result = merge({ warehouse: change });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.messages).toEqual([expect.stringMatching(/^\{Warehouse\\SecretKey\}: is required when /) as unknown]);
      },
    );

    it('refuses a new Redshift server with a password of the caller\'s but the stored S3 secret key, which COPY would carry there (issue 36)', () => {
      const result = merge({ warehouse: { url: 'attacker.example.com:5439', password: 'the-callers-own-password' } });
      expect(result).toEqual({ ok: false, messages: [expect.stringMatching(/^\{Warehouse\\SecretKey\}: is required when \{Warehouse\\Url\} changes/) as unknown] });
    });

    it('lets a PostgreSQL warehouse move with its password alone: its loader reads the bucket itself, so the S3 keys never reach it', () => {
      const postgres = merged({ warehouse: { url: 'postgres://warehouse.internal:5432', password: 'given-again' } });
      expect(merged({ warehouse: { url: 'postgres://other.example.com:5432', password: 'for-the-other' } }, postgres).warehouse).toMatchObject({
        url: 'postgres://other.example.com:5432',
        password: 'for-the-other',
        secretKey: stored.warehouse.secretKey,
      });
      const toRedshift = merge({ warehouse: { url: 'other.example.com:5439', password: 'for-the-other' } }, postgres);
      expect(toRedshift).toEqual({ ok: false, messages: [expect.stringMatching(/^\{Warehouse\\SecretKey\}: is required when \{Warehouse\\Url\} changes/) as unknown] });
    });

    it('accepts the change with the secrets given again, and a change that moves nothing', () => {
      expect(merged({ warehouse: { url: 'other.example.com:5439', password: 'given-again', secretKey: 'key-again' } }).warehouse).toMatchObject({
        url: 'other.example.com:5439',
        password: 'given-again',
        secretKey: 'key-again',
      });
      expect(merged({ warehouse: { url: stored.warehouse.url, bucketName: stored.warehouse.bucketName } }).warehouse).toEqual(stored.warehouse);
      expect(merged({ warehouse: { databaseSchema: 'other_schema', bucketFolderName: '/elsewhere' } }).warehouse).toMatchObject({ databaseSchema: 'other_schema' });
    });

    it('asks for nothing an IAMRole replication does not store', () => {
      const iam = merged({ warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'svc-loader' } });
      expect(merged({ warehouse: { bucketName: 'other-bucket' } }, iam).warehouse.bucketName).toBe('other-bucket');
    });
  });

  it('drops AccessKey credentials when switching to IAMRole', () => {
    const config = merged({ warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'svc-loader' } });
    expect(config.warehouse).not.toHaveProperty('accessKey');
    expect(config.warehouse).not.toHaveProperty('secretKey');
    expect(config.warehouse).toMatchObject({ accessType: 'IAMRole', accountId: '123456789012', roleName: 'svc-loader', bucketName: stored.warehouse.bucketName });
  });

  it('drops IAMRole credentials when switching back to AccessKey', () => {
    const iam = merged({ warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'svc-loader' } });
    const config = merged({ warehouse: { accessType: 'AccessKey', accessKey: 'AKIANEWKEY0000000000', secretKey: 'new-secret' } }, iam);
    expect(config.warehouse).not.toHaveProperty('accountId');
    expect(config.warehouse).not.toHaveProperty('roleName');
    expect(config.warehouse).toMatchObject({ accessType: 'AccessKey', accessKey: 'AKIANEWKEY0000000000', secretKey: 'new-secret' });
  });

  it('keeps credentials when AccessType is repeated unchanged', () => {
    expect(merged({ warehouse: { accessType: 'AccessKey' } }).warehouse).toEqual(stored.warehouse);
  });

  it('adds a complete reseeding schedule and merges later partial changes into it', () => {
    const withSchedule = merged({ reseedingSchedule: { ...schedule, repeatIntervalInMinutes: '60' } });
    expect(withSchedule.reseedingSchedule).toEqual(schedule);
    const changed = merged({ reseedingSchedule: { toTime: '4:30:00 am' } }, withSchedule);
    expect(changed.reseedingSchedule).toEqual({ ...schedule, toTime: '04:30:00 AM' });
  });

  it('refuses a partial schedule when none is stored, naming each missing member', () => {
    const result = merge({ reseedingSchedule: { fromTime: '01:00:00 AM', toTime: '02:00:00 AM' } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.messages.map((message) => message.split(':')[0])).toEqual([
      '{ReseedingSchedule\\NoPkTablesToInclude}',
      '{ReseedingSchedule\\PkTablesToInclude}',
      '{ReseedingSchedule\\RepeatIntervalInMinutes}',
    ]);
  });

  it('adds a complete validation schedule, merges later changes into it, and keeps an interval of 0 (off)', () => {
    const validation = { fromTime: '01:00:00 AM', toTime: '05:00:00 AM', repeatIntervalInMinutes: 1440 };
    const withSchedule = merged({ validationSchedule: { ...validation, repeatIntervalInMinutes: '1440' } });
    expect(withSchedule.validationSchedule).toEqual(validation);
    expect(withSchedule.reseedingSchedule).toBeUndefined();
    const off = merged({ validationSchedule: { repeatIntervalInMinutes: '0' } }, withSchedule);
    expect(off.validationSchedule).toEqual({ ...validation, repeatIntervalInMinutes: 0 });
  });

  it('refuses a partial validation schedule when none is stored, naming each missing member, along with the reseeding schedule\'s', () => {
    const result = merge({ validationSchedule: { repeatIntervalInMinutes: '60' }, reseedingSchedule: { fromTime: '01:00:00 AM' } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.messages.map((message) => message.split(':')[0])).toEqual([
      '{ReseedingSchedule\\NoPkTablesToInclude}',
      '{ReseedingSchedule\\PkTablesToInclude}',
      '{ReseedingSchedule\\ToTime}',
      '{ReseedingSchedule\\RepeatIntervalInMinutes}',
      '{ValidationSchedule\\FromTime}',
      '{ValidationSchedule\\ToTime}',
    ]);
    expect(result.messages.at(-1)).toContain('the replication has no validation schedule yet, so the first one must give all of FromTime, ToTime and RepeatIntervalInMinutes');
  });

  it('does not modify the stored configuration it was given', () => {
    const copy = structuredClone(stored);
    merged({ warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'r' }, parallelTablesLimit: '2' });
    expect(stored).toEqual(copy);
  });
});
