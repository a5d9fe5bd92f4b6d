import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import { CertificateAuthority } from '@svc/crypto';
import { WAREHOUSE_SECRETS, type WarehouseSecret } from '@svc/engines';
import { sampleReplicationConfig, startRecordingPostgresServer, type RecordingPostgresServer } from '@svc/testing';
import { DEFAULT_SCHEMAS, enginesPlaying, secretsSentToWarehouseServer, type WarehouseEngine } from './engines';

const items: TableDefinition = {
  table: { schema: 'public', name: 'items' },
  columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }],
  primaryKey: ['id'],
  estimatedRows: 0,
};
const batch: BatchDescriptor = { batchId: 'items:changes:1:2', replicationId: 'r1', epoch: 1, definition: items, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } };
const files = { bucket: 'the-bucket', manifestKey: 'r1/items/batch_7/manifest.json', partKeys: ['r1/items/batch_7/part-00000.csv.gz'] };
// A loader that reads the files itself is handed this part; one that has the warehouse read them never asks.
const reader = {
  readPart: () =>
    Promise.resolve(
      (async function* () {
        yield Buffer.from('"1"\n');
      })(),
    ),
};
const SECRETS: Record<WarehouseSecret, string> = { password: 'marker-password-5b1f', secretKey: 'marker-secret-key-9c2e' };

/**
 * What each warehouse engine's connector sends to the server Warehouse.Url names, for Alter's rule that a stored
 * secret never goes anywhere new (apps/job-registry secret-recipients.ts): a server of the caller's, which asks for
 * the password in clear text and answers every statement, records what reaches it while the engine loads a batch.
 */
describe.each(enginesPlaying('warehouse').map((engine) => [engine.name, engine] as const))('the %s warehouse server', (name, engine) => {
  let folder = '';
  let server: RecordingPostgresServer;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'svc-warehouse-secrets-'));
    const authority = CertificateAuthority.create(folder, { name: 'ca' });
    const issued = authority.issue({ name: 'server', hosts: ['127.0.0.1'] });
    server = await startRecordingPostgresServer({
      tls: { key: readFileSync(issued.keyFile, 'utf8'), cert: readFileSync(issued.certFile, 'utf8') },
      // The batch's epoch fence, where the engine writes it with RETURNING: raised; and the load's time, taken after
      // the table's lock: so the load goes on to its COPY.
      rowsFor: (statement) => {
        if (/\bRETURNING\b/i.test(statement)) return [{ epoch: String(batch.epoch) }];
        return /\bAS stamp\b/i.test(statement) ? [{ stamp: '2026-01-02 03:04:05.000000' }] : [];
      },
    });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('receives exactly the secrets the engine declares, and a COPY that names the bucket reads it where the bucket is', async () => {
    const scheme = name === 'postgres' ? 'postgres' : name;
    const config = sampleReplicationConfig({
      warehouse: {
        url: `${scheme}://127.0.0.1:${server.port}?sslmode=require`,
        password: SECRETS.password,
        secretKey: SECRETS.secretKey,
        bucketName: files.bucket,
        regionEndpoint: 'eu-west-1',
      },
    });
    const open = engine.pipeline.openWarehouse;
    if (open === undefined) throw new Error(`${name} plays the warehouse without a connector`);
    const warehouse = open(config, { bareNameSchemas: DEFAULT_SCHEMAS });
    try {
      // The fake server's empty answers may fail the load after its COPY; what it was sent is all that counts here.
      await warehouse.loadBatch(batch, files, reader, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false }).catch(() => undefined);
    } finally {
      await warehouse.close();
    }

    const copies = server.statements.filter((statement) => /^\s*COPY\b/i.test(statement));
    expect(copies).not.toEqual([]);
    const received = server.received();
    const reached = WAREHOUSE_SECRETS.filter((secret) => received.includes(SECRETS[secret]));
    expect(reached).toEqual(engine.warehouseServerReceives);
    expect(secretsSentToWarehouseServer(name as WarehouseEngine)).toEqual(reached);
    expect(server.passwords).toContain(SECRETS.password);
    for (const copy of copies.filter((statement) => statement.includes(SECRETS.secretKey))) {
      // Redshift reads the files with the key pair from the bucket and region the replication names: the bucket's
      // own recipient fields (BucketName, RegionEndpoint, AccessKey), so moving those needs the key again too.
      expect(copy).toContain(`'s3://${files.bucket}/`);
      expect(copy).toContain("REGION 'eu-west-1'");
      expect(copy).toContain(`ACCESS_KEY_ID '${config.warehouse.accessKey ?? ''}'`);
    }
  });
});
