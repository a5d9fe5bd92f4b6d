import { ConfigError } from '@svc/config';
import { DEVELOPMENT_ACCESS_KEY, databaseUrl, loadDemoSettings } from './demo-settings';

describe('loadDemoSettings', () => {
  it('falls back to the local stack and the development key of npm start', () => {
    expect(loadDemoSettings({}, '/repo')).toEqual({
      endpoint: 'http://127.0.0.1:8080',
      region: 'us-east-1',
      accessKeyId: DEVELOPMENT_ACCESS_KEY.accessKeyId,
      secretKey: DEVELOPMENT_ACCESS_KEY.secretKey,
      postgresUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
      developmentKey: true,
      liveDemoPrefix: 'svc_live',
      bucketCredentialsFile: '/repo/tmp/embedded-s3-credentials.json',
    });
  });

  it('reads the embedded S3 server\'s credentials from EMBEDDED_S3_CREDENTIALS_FILE when set', () => {
    expect(loadDemoSettings({ EMBEDDED_S3_CREDENTIALS_FILE: '/home/me/s3.json' }, '/repo').bucketCredentialsFile).toBe('/home/me/s3.json');
  });

  it('names the live demo databases by DEMO_DATABASE_PREFIX, refusing one that is no plain identifier', () => {
    expect(loadDemoSettings({ DEMO_DATABASE_PREFIX: 'svc_e2e_live_1' }, '/repo').liveDemoPrefix).toBe('svc_e2e_live_1');
    expect(() => loadDemoSettings({ DEMO_DATABASE_PREFIX: 'x"; DROP DATABASE postgres; --' }, '/repo')).toThrow(/DEMO_DATABASE_PREFIX: must be/);
  });

  it('takes the endpoint, key pair and PostgreSQL URL from the environment', () => {
    const settings = loadDemoSettings({
      SVC_ENDPOINT: 'https://gw.example:9443',
      SVC_ACCESS_KEY_ID: 'AKID',
      SVC_SECRET_ACCESS_KEY: 'secret',
      SVC_REGION: 'eu-west-1',
      DEMO_POSTGRES_URL: 'postgresql://admin:pw@db:6543/maintenance',
    }, '/repo');
    expect(settings).toMatchObject({ endpoint: 'https://gw.example:9443', accessKeyId: 'AKID', secretKey: 'secret', region: 'eu-west-1', developmentKey: false });
    expect(settings.postgresUrl).toBe('postgresql://admin:pw@db:6543/maintenance');
  });

  it('refuses half a key pair and bad URLs, naming each variable without echoing values', () => {
    let thrown: unknown;
    try {
      loadDemoSettings({ SVC_ACCESS_KEY_ID: 'AKID', SVC_ENDPOINT: 'ftp://x', DEMO_POSTGRES_URL: 'mysql://u:hunter2@h/db' }, '/repo');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems;
    expect(problems).toEqual(expect.arrayContaining([expect.stringContaining('SVC_SECRET_ACCESS_KEY'), expect.stringContaining('SVC_ENDPOINT'), expect.stringContaining('DEMO_POSTGRES_URL')]));
    expect(problems.join(' ')).not.toContain('hunter2');
  });
});

describe('databaseUrl', () => {
  it('keeps server and credentials and swaps the database', () => {
    expect(databaseUrl('postgres://u:p@h:5433/postgres?sslmode=disable', 'svc_demo_source')).toBe('postgres://u:p@h:5433/svc_demo_source?sslmode=disable');
  });
});
