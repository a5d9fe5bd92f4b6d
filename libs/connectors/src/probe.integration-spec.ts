import { TEST_POSTGRES_SERVER_URL, createTempDatabase, freePort, startSilentServer, type SilentServer, type TempDatabase } from '@svc/testing';
import { mssqlDriver } from '@svc/sqlserver/common';
import { UNSUPPORTED_CONNECTION_STRING, UNSUPPORTED_WAREHOUSE_URL } from './engine';
import { probeDatabase, probeWarehouse } from './probe';
import { UNREACHABLE_REASON } from './failure-reason';

const plain = { encrypt: false, timeoutMs: 5000 };

// A wrong password cannot be tested here: the local PostgreSQL uses trust authentication and accepts any
// password. The mapping of 28P01/28000 and of mssql's ELOGIN is covered by failure-reason.spec.ts.
describe('probeDatabase against the local PostgreSQL', () => {
  let database: TempDatabase;

  beforeAll(async () => {
    database = await createTempDatabase('svc_probe');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('succeeds for a reachable database', async () => {
    expect(await probeDatabase(database.url, plain)).toBeNull();
    expect(await probeDatabase(`postgresql://postgres:any-password@127.0.0.1:5432/${database.name}?application_name=svc-probe`, plain)).toBeNull();
  });

  it('says a database does not exist without quoting the connection string', async () => {
    expect(await probeDatabase(`${database.url}_missing`, plain)).toBe('database does not exist');
  });

  // Issue 19: refused, unknown host and TLS not offered are one reason, so that the answer is no port scanner.
  it('reports a refused connection without echoing the password', async () => {
    const reason = await probeDatabase('postgres://postgres:Sup3r-Secret@127.0.0.1:1/db', plain);
    expect(reason).toBe(UNREACHABLE_REASON);
  });

  it('reports a host that does not resolve', async () => {
    expect(await probeDatabase('postgres://postgres@no-such-host.invalid:5432/db', plain)).toBe(UNREACHABLE_REASON);
  });

  it('reports a server that cannot encrypt when EncryptDataInTransit is true', async () => {
    expect(await probeDatabase(database.url, { encrypt: true, timeoutMs: 5000 })).toBe(UNREACHABLE_REASON);
  });

  it('rejects an unsupported connection string', async () => {
    expect(await probeDatabase('Host=127.0.0.1;Database=x;Password=p', plain)).toBe(UNSUPPORTED_CONNECTION_STRING);
  });
});

describe('probeDatabase against SQL Server addresses (no SQL Server needed)', () => {
  it('reports a refused connection for an ADO string', async () => {
    expect(await probeDatabase(`Server=tcp:127.0.0.1,${await freePort()};Database=x;User ID=sa;Password=Secret!1`, plain)).toBe(UNREACHABLE_REASON);
  });

  it('reports a refused connection for an mssql:// URL', async () => {
    expect(await probeDatabase(`mssql://sa:Secret@127.0.0.1:${await freePort()}/x`, plain)).toBe(UNREACHABLE_REASON);
  });
});

describe('probe deadlines', () => {
  let silent: SilentServer;

  beforeAll(async () => {
    silent = await startSilentServer();
    // The SQL Server driver loads at its first connection (0.3 CPU-s, more on a busy machine): load it before timing.
    mssqlDriver();
  });

  afterAll(async () => {
    await silent.stop();
  });

  it.each([
    ['PostgreSQL', () => `postgres://postgres@127.0.0.1:${silent.port}/db`],
    ['SQL Server', () => `Server=127.0.0.1,${silent.port};Database=x;User ID=sa;Password=p`],
  ])('%s: gives up at the deadline', async (_engine, connectionString) => {
    const started = Date.now();
    expect(await probeDatabase(connectionString(), { encrypt: false, timeoutMs: 800 })).toBe(UNREACHABLE_REASON);
    // The 0.8 s deadline, not the driver's own connect timeout (15 s); the rest is room for a busy machine.
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('probeWarehouse', () => {
  let database: TempDatabase;
  const login = { username: 'postgres', password: 'unused-with-trust' };

  beforeAll(async () => {
    database = await createTempDatabase('svc_probe_dw');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('connects to a postgres:// warehouse with the request database and user', async () => {
    expect(await probeWarehouse({ ...login, url: TEST_POSTGRES_SERVER_URL, databaseName: database.name }, 5000)).toBeNull();
    expect(await probeWarehouse({ ...login, url: TEST_POSTGRES_SERVER_URL, databaseName: `${database.name}_missing` }, 5000)).toBe(
      `database "${database.name}_missing" does not exist`,
    );
  });

  it('treats a bare host:port as Redshift and insists on TLS', async () => {
    // A server that offers no TLS is a "cannot reach" like any other (issue 19).
    expect(await probeWarehouse({ ...login, url: '127.0.0.1:5432', databaseName: database.name }, 5000)).toBe(UNREACHABLE_REASON);
  });

  it('rejects an unsupported URL', async () => {
    expect(await probeWarehouse({ ...login, url: 'https://cluster.example.com', databaseName: 'dw' }, 5000)).toBe(UNSUPPORTED_WAREHOUSE_URL);
  });
});
