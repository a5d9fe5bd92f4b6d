import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { CertificateAuthority } from '@svc/crypto';
import { PrivatePostgres, type PrivateCluster } from '@svc/testing';
import { ensureDatabase } from './ensure-database';
import { migrate } from './migrate';

/**
 * Issue 40, item 5: the control database on a server that accepts TLS connections only (Amazon RDS with
 * rds.force_ssl, any managed PostgreSQL), reached as DATABASE_URL says: `sslmode=verify-full` with `sslrootcert` the
 * CA file (RDS: its global bundle). The registry creates and migrates the database over that connection, and refuses
 * a connection without TLS and a server whose certificate that CA did not sign.
 */
describe('the control database over TLS (DATABASE_URL sslmode and sslrootcert)', () => {
  let postgres: PrivatePostgres;
  let cluster: PrivateCluster;
  let certificates: string;
  let caFile: string;
  let otherCaFile: string;

  beforeAll(async () => {
    certificates = mkdtempSync(join(tmpdir(), 'svc-control-tls-'));
    const authority = CertificateAuthority.create(certificates, { name: 'control-ca', subject: 'svc control-ca', days: 2 });
    caFile = authority.certFile;
    otherCaFile = CertificateAuthority.create(certificates, { name: 'other-ca', subject: 'svc other-ca', days: 2 }).certFile;
    const server = authority.issue({ name: 'control-server', hosts: ['127.0.0.1', 'localhost'], days: 2 });

    postgres = PrivatePostgres.create('svc-pg-tls-');
    cluster = await postgres.initdb('control');
    postgres.writeDataFile(cluster, 'server.crt', readFileSync(server.certFile, 'utf8'));
    postgres.writeDataFile(cluster, 'server.key', readFileSync(server.keyFile, 'utf8'));
    // TCP connections over TLS only, as a server that forces it answers.
    postgres.writeDataFile(cluster, 'pg_hba.conf', 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n');
    postgres.configure(cluster, { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key' });
    await postgres.start(cluster);
  }, 60000);

  afterAll(async () => {
    await postgres?.remove();
    rmSync(certificates, { recursive: true, force: true });
  });

  const urlOf = (database: string, query: string): string => `postgres://postgres@127.0.0.1:${cluster.port}/${database}?${query}`;

  it('creates and migrates the control database over TLS, the server verified against the CA file', async () => {
    const url = urlOf('svc_registry_tls', `sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`);
    expect(await ensureDatabase(url)).toEqual({ created: true });
    const pool = new Pool({ connectionString: url, max: 2 });
    try {
      const report = await migrate(pool);
      expect(report.applied.length).toBeGreaterThan(0);
      const tls = await pool.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
      expect(tls.rows[0]?.ssl).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('is refused without TLS by such a server', async () => {
    await expect(ensureDatabase(urlOf('svc_registry_plain', 'sslmode=disable'))).rejects.toThrow(/no pg_hba.conf entry .* no encryption/);
  });

  it('refuses a server whose certificate the CA in sslrootcert did not sign', async () => {
    await expect(ensureDatabase(urlOf('svc_registry_other', `sslmode=verify-full&sslrootcert=${encodeURIComponent(otherCaFile)}`))).rejects.toThrow(
      /self[- ]signed|unable to (verify|get)/i,
    );
  });
});
