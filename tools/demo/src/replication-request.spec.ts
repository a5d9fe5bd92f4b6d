import { demoCreateRequest } from './replication-request';

describe('demoCreateRequest', () => {
  it('replicates the demo databases on the given server into analytics, Type1, through the embedded S3 server', () => {
    const body = demoCreateRequest('postgres://postgres@127.0.0.1:5432/postgres');
    expect(body).toMatchObject({
      tablesToInclude: 'All',
      source: { connectionString: 'postgres://postgres@127.0.0.1:5432/svc_demo_source' },
      staging: { connectionString: 'postgres://postgres@127.0.0.1:5432/svc_demo_staging' },
      warehouse: {
        accessType: 'AccessKey',
        accessKey: 'S3RVER',
        secretKey: 'S3RVER',
        url: 'postgres://127.0.0.1:5432',
        databaseName: 'svc_demo_warehouse',
        databaseSchema: 'analytics',
        username: 'postgres',
        scdType: 'Type1',
      },
    });
  });

  it('re-seeds the table without a key all day, every minute', () => {
    expect(demoCreateRequest('postgres://postgres@127.0.0.1:5432/postgres')['reseedingSchedule']).toEqual({
      noPkTablesToInclude: '[public].[page_views]',
      pkTablesToInclude: '',
      fromTime: '12:00:00 AM',
      toTime: '11:59:59 PM',
      repeatIntervalInMinutes: 1,
    });
  });

  it('passes the server credentials on to the warehouse fields', () => {
    const body = demoCreateRequest('postgres://dw%20user:p%40ss@db.internal:6543/postgres') as { warehouse: Record<string, unknown> };
    expect(body.warehouse).toMatchObject({ url: 'postgres://db.internal:6543', username: 'dw user', password: 'p@ss' });
  });
});
