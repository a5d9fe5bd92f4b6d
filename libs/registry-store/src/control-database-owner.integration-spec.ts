import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Pool } from 'pg';
import { ExternalIdIssuer, SecretBox } from '@svc/crypto';
import { databaseUrl, reserveTempDatabase, sampleReplicationConfig, TEST_POSTGRES_URL, type TempDatabase } from '@svc/testing';
import { quoteIdentifier } from './control-database';
import { ensureDatabase } from './ensure-database';
import { issueMissingExternalIds } from './external-id-backfill';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { ReplicationRepository } from './replication-repository';
import { resealStoredSecrets } from './reseal-secrets';

const run = promisify(execFile);
/** What docker-compose.yml's postgres-init job runs, as the superuser, on every `up`. */
const OWNER_SCRIPT = join(__dirname, '..', '..', '..', 'deploy', 'postgres', 'svc-registry.sql');
const author = { requestId: 'req-owner', accessKeyId: 'SVCOWNERTEST' };

interface OwnerRole {
  name: string;
  password: string;
}

function newRole(): OwnerRole {
  return { name: `svc_registry_it_${randomBytes(5).toString('hex')}`, password: randomBytes(16).toString('hex') };
}

async function runOwnerScript(role: OwnerRole, database: string): Promise<void> {
  await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-v', `role=${role.name}`, '-v', `database=${database}`, '-v', `password=${role.password}`, '-f', OWNER_SCRIPT, '-d', TEST_POSTGRES_URL]);
}

/** The control database's URL as the role sees it: its own name and password. */
function urlAs(role: OwnerRole, database: string): string {
  const url = new URL(databaseUrl(database));
  url.username = role.name;
  url.password = role.password;
  return url.toString();
}

async function asSuperuser<T>(database: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl(database) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The steps the job-registry's openControlDatabase takes (apps/job-registry/src/store/store.module.ts). */
async function openAsRegistry(url: string, box: SecretBox): Promise<{ pool: Pool; created: boolean; applied: number[]; resealed: number; externalIds: number }> {
  const { created } = await ensureDatabase(url);
  const pool = new Pool({ connectionString: url, max: 2 });
  const { applied } = await migrate(pool);
  const resealed = (await resealStoredSecrets(pool, box)).reduce((sum, column) => sum + column.resealed, 0);
  const externalIds = await issueMissingExternalIds(pool, new ExternalIdIssuer(randomBytes(32)));
  return { pool, created, applied, resealed, externalIds };
}

/**
 * Issue 36: compose's registry ran as the PostgreSQL superuser. Now deploy/postgres/svc-registry.sql makes it a role that
 * only owns the control database; the registry's start (ensure the database, migrate, reseal, issue ExternalIds) must
 * work as that role, on a new volume and on one an older, superuser-run registry filled.
 */
describe('the control database owned by a role that is not a superuser', () => {
  const databases: TempDatabase[] = [];
  const roles: OwnerRole[] = [];
  const pools: Pool[] = [];

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    for (const database of databases) await database.drop();
    await asSuperuser('postgres', async (admin) => {
      for (const role of roles) await admin.query(`DROP ROLE IF EXISTS ${quoteIdentifier(role.name)}`);
    });
  });

  it('starts the registry on a new server: the script makes the database, the role only migrates and writes it', async () => {
    const database = reserveTempDatabase('svc_owner_new');
    const role = newRole();
    databases.push(database);
    roles.push(role);
    await runOwnerScript(role, database.name);
    await runOwnerScript(role, database.name); // every `up` runs it again

    const opened = await openAsRegistry(urlAs(role, database.name), new SecretBox(randomBytes(32)));
    pools.push(opened.pool);
    expect(opened.created).toBe(false);
    expect(opened.applied).toEqual(MIGRATIONS.map((migration) => migration.version));

    const self = await opened.pool.query<{ user: string; rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean; rolreplication: boolean; rolbypassrls: boolean }>(
      'SELECT current_user AS user, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    expect(self.rows).toEqual([{ user: role.name, rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false, rolbypassrls: false }]);
    // 42501 insufficient_privilege: the role cannot make databases (nor anything else a superuser may).
    await expect(opened.pool.query(`CREATE DATABASE ${quoteIdentifier(`${database.name}_other`)}`)).rejects.toMatchObject({ code: '42501' });
    const owner = await opened.pool.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = current_database()');
    expect(owner.rows[0]?.owner).toBe(role.name);

    const stored = await new ReplicationRepository(opened.pool, new SecretBox(randomBytes(32))).insert({ status: 'Running', config: sampleReplicationConfig() }, author);
    expect(stored.replicationId).toEqual(expect.any(String));
  });

  it('brings along a database a superuser-run registry made: the role owns its tables, migrates them and reseals', async () => {
    const database = reserveTempDatabase('svc_owner_old');
    const role = newRole();
    databases.push(database);
    roles.push(role);
    // Before: compose's registry connected as postgres, created the database and migrated it, and stored a replication.
    const previousKey = randomBytes(32);
    expect(await ensureDatabase(database.url)).toEqual({ created: true });
    const superuserPool = new Pool({ connectionString: database.url, max: 2 });
    try {
      await migrate(superuserPool);
      await new ReplicationRepository(superuserPool, new SecretBox(previousKey)).insert({ status: 'Running', config: sampleReplicationConfig() }, author);
    } finally {
      await superuserPool.end();
    }

    await runOwnerScript(role, database.name);
    // Now the registry runs as the role, with the master key rotated: resealing updates what postgres wrote.
    const opened = await openAsRegistry(urlAs(role, database.name), new SecretBox(randomBytes(32), [previousKey]));
    pools.push(opened.pool);
    expect(opened.applied).toEqual([]);
    expect(opened.resealed).toBeGreaterThan(0);

    const notOwned = await asSuperuser(database.name, (admin) =>
      admin.query<{ relname: string }>(
        "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'S', 'i') AND pg_get_userbyid(relowner) <> $1",
        [role.name],
      ),
    );
    expect(notOwned.rows).toEqual([]);
    // A later migration that alters a table the superuser created (only its owner may).
    const probe = { version: Math.max(...MIGRATIONS.map((migration) => migration.version)) + 1, name: 'owner probe', sql: 'ALTER TABLE replications ADD COLUMN owner_probe integer' };
    expect((await migrate(opened.pool, [...MIGRATIONS, probe])).applied).toEqual([probe.version]);
  });
});
