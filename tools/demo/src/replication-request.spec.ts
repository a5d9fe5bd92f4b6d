import { demoCreateRequest, runConnectionString } from './replication-request';

const BUCKET_KEY = { accessKey: 'SVCLOCALAB12CD34EF56', secretKey: 'installation-secret' };

describe('demoCreateRequest', () => {
  it('replicates the demo databases on the given server into analytics, Type1, through the embedded S3 server', () => {
    const body = demoCreateRequest('postgres://postgres@127.0.0.1:5432/postgres', 'svc-demo-run1', BUCKET_KEY);
    expect(body).toMatchObject({
      tablesToInclude: 'All',
      source: { connectionString: 'postgres://postgres@127.0.0.1:5432/svc_demo_source?application_name=svc-demo-run1' },
      staging: { connectionString: 'postgres://postgres@127.0.0.1:5432/svc_demo_staging?application_name=svc-demo-run1' },
      warehouse: {
        accessType: 'AccessKey',
        accessKey: 'SVCLOCALAB12CD34EF56',
        secretKey: 'installation-secret',
        url: 'postgres://127.0.0.1:5432',
        databaseName: 'svc_demo_warehouse',
        databaseSchema: 'analytics',
        username: 'postgres',
        scdType: 'Type1',
      },
    });
  });

  it('re-seeds the table without a key all day, every minute', () => {
    expect(demoCreateRequest('postgres://postgres@127.0.0.1:5432/postgres', 'svc-demo-run1', BUCKET_KEY)['reseedingSchedule']).toEqual({
      noPkTablesToInclude: '[public].[page_views]',
      pkTablesToInclude: '',
      fromTime: '12:00:00 AM',
      toTime: '11:59:59 PM',
      repeatIntervalInMinutes: 1,
    });
  });

  it('passes the server credentials on to the warehouse fields', () => {
    const body = demoCreateRequest('postgres://dw%20user:p%40ss@db.internal:6543/postgres', 'svc-demo-run1', BUCKET_KEY) as { warehouse: Record<string, unknown> };
    expect(body.warehouse).toMatchObject({ url: 'postgres://db.internal:6543', username: 'dw user', password: 'p@ss' });
  });
});

describe('runConnectionString', () => {
  it('names the run in application_name, keeping other parameters', () => {
    expect(runConnectionString('postgres://u@h:5432/postgres?sslmode=disable', 'svc_demo_source', 'svc-demo-x')).toBe(
      'postgres://u@h:5432/svc_demo_source?sslmode=disable&application_name=svc-demo-x',
    );
  });
});
