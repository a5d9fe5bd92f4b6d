import { configurationRows, SECRET_MASK } from './secrets.js';

describe('configuration rows', () => {
  it('masks every secret field whatever the server sent, and names fields as the API does', () => {
    const rows = configurationRows({
      replicationName: 'Sales',
      source: { connectionString: 'postgres://u:hunter2@db/sales', encryptDataInTransit: false },
      warehouse: { password: 'hunter2', secretKey: 'AKIA-secret', accessKey: 'AKIA', url: 'db:5439', bucketName: 'bucket' },
      tablesToInclude: ['[public].[a]', '[public].[b]'],
      reseedingSchedule: undefined,
      dataReplication: true,
    });
    expect(rows).toEqual([
      { label: 'ReplicationName', value: 'Sales' },
      { label: 'Source\\ConnectionString', value: SECRET_MASK },
      { label: 'Source\\EncryptDataInTransit', value: 'false' },
      { label: 'Warehouse\\Password', value: SECRET_MASK },
      { label: 'Warehouse\\SecretKey', value: SECRET_MASK },
      { label: 'Warehouse\\AccessKey', value: SECRET_MASK },
      { label: 'Warehouse\\Url', value: SECRET_MASK },
      { label: 'Warehouse\\BucketName', value: 'bucket' },
      { label: 'TablesToInclude', value: '[public].[a], [public].[b]' },
      { label: 'DataReplication', value: 'true' },
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/hunter2|AKIA/);
  });
});
