import { ConfigError } from '@svc/config';
import { databaseUrl, loadDemoSettings } from './demo-settings';

const INSTALLATION_KEY = { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'this-installation-own-random-secret-0123' };

describe('loadDemoSettings', () => {
  const keyFilesRead: string[] = [];
  const keyFile = (path: string) => {
    keyFilesRead.push(path);
    return INSTALLATION_KEY;
  };
  beforeEach(() => (keyFilesRead.length = 0));

  it("falls back to the local stack and the development key of npm start, read from the installation's key file", () => {
    expect(loadDemoSettings({}, '/repo', keyFile)).toEqual({
      endpoint: 'http://127.0.0.1:8080',
      region: 'us-east-1',
      accessKeyId: INSTALLATION_KEY.accessKeyId,
      secretKey: INSTALLATION_KEY.secretKey,
      postgresUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
      developmentKey: true,
      liveDemoPrefix: 'svc_live',
      runDatabases: { source: 'svc_demo_source', staging: 'svc_demo_staging', warehouse: 'svc_demo_warehouse' },
      bucketCredentialsFile: '/repo/tmp/embedded-s3-credentials.json',
    });
    expect(keyFilesRead).toEqual(['/repo/tmp/development-key.json']);
    loadDemoSettings({ DEVELOPMENT_KEY_FILE: '/home/me/key.json' }, '/repo', keyFile);
    expect(keyFilesRead).toEqual(['/repo/tmp/development-key.json', '/home/me/key.json']);
  });

  it('says that npm start makes the development key when its file is missing', () => {
    expect(() => loadDemoSettings({ DEVELOPMENT_KEY_FILE: '/nonexistent/development-key.json' }, '/repo')).toThrow(
      '/nonexistent/development-key.json does not exist: `npm start` writes its development access key there on its first run',
    );
  });

  it('reads the embedded S3 server\'s credentials from EMBEDDED_S3_CREDENTIALS_FILE when set', () => {
    expect(loadDemoSettings({ EMBEDDED_S3_CREDENTIALS_FILE: '/home/me/s3.json' }, '/repo', keyFile).bucketCredentialsFile).toBe('/home/me/s3.json');
  });

  it('names npm run demo\'s databases by DEMO_RUN_DATABASE_PREFIX, refusing one that is no plain identifier or is the live demo\'s (issue 40)', () => {
    expect(loadDemoSettings({ DEMO_RUN_DATABASE_PREFIX: 'team_a_demo' }, '/repo', keyFile).runDatabases).toEqual({
      source: 'team_a_demo_source',
      staging: 'team_a_demo_staging',
      warehouse: 'team_a_demo_warehouse',
    });
    expect(() => loadDemoSettings({ DEMO_RUN_DATABASE_PREFIX: 'Bad-Name' }, '/repo', keyFile)).toThrow(/DEMO_RUN_DATABASE_PREFIX: must be 1 to 41/);
    expect(() => loadDemoSettings({ DEMO_RUN_DATABASE_PREFIX: 'svc_live' }, '/repo', keyFile)).toThrow(/DEMO_RUN_DATABASE_PREFIX: must differ from DEMO_DATABASE_PREFIX/);
  });

  it('names the live demo databases by DEMO_DATABASE_PREFIX, refusing one that is no plain identifier', () => {
    expect(loadDemoSettings({ DEMO_DATABASE_PREFIX: 'svc_e2e_live_1' }, '/repo', keyFile).liveDemoPrefix).toBe('svc_e2e_live_1');
    expect(() => loadDemoSettings({ DEMO_DATABASE_PREFIX: 'x"; DROP DATABASE postgres; --' }, '/repo')).toThrow(/DEMO_DATABASE_PREFIX: must be/);
  });

  it('takes the endpoint, key pair and PostgreSQL URL from the environment', () => {
    const settings = loadDemoSettings({
      SVC_ENDPOINT: 'https://gw.example:9443',
      SVC_ACCESS_KEY_ID: 'AKID',
      SVC_SECRET_ACCESS_KEY: 'secret',
      SVC_REGION: 'eu-west-1',
      DEMO_POSTGRES_URL: 'postgresql://admin:pw@db:6543/maintenance',
    }, '/repo', keyFile);
    expect(settings).toMatchObject({ endpoint: 'https://gw.example:9443', accessKeyId: 'AKID', secretKey: 'secret', region: 'eu-west-1', developmentKey: false });
    expect(settings.postgresUrl).toBe('postgresql://admin:pw@db:6543/maintenance');
    expect(keyFilesRead).toEqual([]);
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
