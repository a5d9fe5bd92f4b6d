import { SECRET_MASK, type ReplicationConfig } from '@svc/contracts';
import { sampleReplicationConfig } from '@svc/testing';
import { changedConfigPaths } from './config-paths';
import { joinSecrets, maskConfigSecrets, maskedValuesAt, splitSecrets } from './secret-fields';

const SECRETS = ['src-secret', 'stg-secret', 'wh-secret-key', 'wh-password'];
const config = sampleReplicationConfig({
  source: { connectionString: 'postgres://u:src-secret@h/app' },
  staging: { connectionString: 'Server=s;User Id=u;Password=stg-secret' },
  warehouse: { accessKey: 'AKIA1', secretKey: 'wh-secret-key', password: 'wh-password' },
});

describe('secret fields', () => {
  it('splits every secret out of the public part and joins them back', () => {
    const { publicConfig, secretsJson } = splitSecrets(config);
    const publicText = JSON.stringify(publicConfig);
    for (const secret of SECRETS) {
      expect(publicText).not.toContain(secret);
      expect(secretsJson).toContain(secret);
    }
    expect(publicText).not.toContain('connectionString');
    expect(joinSecrets(publicConfig, secretsJson)).toEqual(config);
  });

  it('keeps an IAMRole warehouse without a secret key', () => {
    const warehouse = { ...config.warehouse, accessType: 'IAMRole' as const, accountId: '1', roleName: 'r' };
    delete warehouse.accessKey;
    delete warehouse.secretKey;
    const iam = { ...config, warehouse };
    const { publicConfig, secretsJson } = splitSecrets(iam);
    expect(joinSecrets(publicConfig, secretsJson)).toEqual(iam);
    expect(maskConfigSecrets(iam).warehouse).not.toHaveProperty('secretKey');
  });

  it('masks secrets for display', () => {
    const masked = maskConfigSecrets(config);
    expect(JSON.stringify(masked)).not.toMatch(new RegExp(SECRETS.join('|')));
    expect(masked.source.connectionString).toBe(`postgres://u:${SECRET_MASK}@h/app`);
    expect(masked.staging.connectionString).toBe(`Server=s;User Id=u;Password=${SECRET_MASK}`);
    expect(masked.warehouse.secretKey).toBe(SECRET_MASK);
    expect(masked.warehouse.password).toBe(SECRET_MASK);
    expect(masked.warehouse.accessKey).toBe('AKIA1');
  });

  it('masks a password in a warehouse URL stored before the API refused credentials there', () => {
    const stored = { ...config, warehouse: { ...config.warehouse, url: 'postgres://dw:wh-url-secret@dw.example.com:5432' } };
    expect(maskConfigSecrets(stored).warehouse.url).toBe(`postgres://dw:${SECRET_MASK}@dw.example.com:5432`);
    expect(maskConfigSecrets(config).warehouse.url).toBe(config.warehouse.url);
    expect(JSON.stringify(maskedValuesAt(stored, ['warehouse.url']))).not.toContain('wh-url-secret');
  });

  it('reports masked values of changed paths, null for removed ones', () => {
    expect(maskedValuesAt(config, ['warehouse.password', 'source.connectionString', 'parallelTablesLimit', 'reseedingSchedule.fromTime'])).toEqual({
      'warehouse.password': SECRET_MASK,
      'source.connectionString': `postgres://u:${SECRET_MASK}@h/app`,
      parallelTablesLimit: 10,
      'reseedingSchedule.fromTime': null,
    });
  });
});

describe('changedConfigPaths', () => {
  it('lists changed, added and removed leaves; arrays compare as values', () => {
    const after: ReplicationConfig = {
      ...config,
      tablesToInclude: ['[dbo].[a]'],
      warehouse: { ...config.warehouse, bucketName: 'other' },
      reseedingSchedule: { noPkTablesToInclude: 'All', pkTablesToInclude: 'All', fromTime: '01:00:00 AM', toTime: '02:00:00 AM', repeatIntervalInMinutes: 60 },
    };
    expect(changedConfigPaths(config, after)).toEqual([
      'reseedingSchedule.fromTime',
      'reseedingSchedule.noPkTablesToInclude',
      'reseedingSchedule.pkTablesToInclude',
      'reseedingSchedule.repeatIntervalInMinutes',
      'reseedingSchedule.toTime',
      'tablesToInclude',
      'warehouse.bucketName',
    ]);
    expect(changedConfigPaths(after, { ...after, tablesToInclude: ['[dbo].[a]'] })).toEqual([]);
    expect(changedConfigPaths(after, config)).toContain('reseedingSchedule.fromTime');
  });
});
