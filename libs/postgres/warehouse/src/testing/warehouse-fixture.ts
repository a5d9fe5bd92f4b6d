/* Helpers shared by this lib's integration specs; not exported, and the build leaves testing/ out. */
import type { BatchDescriptor, ColumnDefinition, ScdType, StagedFiles, TableDefinition } from '@svc/contracts';
import type { ApplyOutcome, CsvChunks, StagedFileReader, WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { TEST_POSTGRES_SERVER_URL, TEST_POSTGRES_URL, createTempDatabase, type TempDatabase } from '@svc/testing';
import { portableTypeOfPostgres } from '@svc/postgres/common';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { createPostgresWarehouse, type PostgresWarehouseOptions } from '../postgres-warehouse';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

/** Odd on purpose: chunks end mid-row and mid-character, as network reads do. */
const CHUNK_BYTES = 997;

/** Serves CSV strings as staged parts (the S3 reader lives elsewhere). */
export class CsvFiles implements StagedFileReader {
  private readonly parts = new Map<string, string>();
  /** Keys readPart was asked for, in order. */
  readonly reads: string[] = [];

  put(key: string, csv: string): void {
    this.parts.set(key, csv);
  }

  async readPart(key: string): Promise<CsvChunks> {
    this.reads.push(key);
    const csv = this.parts.get(key);
    if (csv === undefined) throw new Error(`no part ${key}`);
    return chunksOf(Buffer.from(csv, 'utf8'));
  }
}

async function* chunksOf(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) yield bytes.subarray(offset, offset + CHUNK_BYTES);
}

/** A nullable column of a PostgreSQL source, its type in PostgreSQL's spelling (`numeric(12,2)`, `text[]`). */
export function column(name: string, postgresType: string, sourceType = postgresType): ColumnDefinition {
  return { name, sourceType, portableType: portableTypeOfPostgres(postgresType), nullable: true };
}

export function table(schema: string, name: string, columns: ColumnDefinition[], primaryKey: string[]): TableDefinition {
  return { table: { schema, name }, columns, primaryKey, estimatedRows: 0 };
}

export function seedBatch(definition: TableDefinition, seedId: string, part: number, final: boolean, epoch = 1): BatchDescriptor {
  return {
    batchId: `${definition.table.name}:seed:${seedId}:${part}`,
    replicationId: 'r1',
    epoch,
    definition,
    body: { kind: 'seed', seedId, part, final, startVersion: '100' },
  };
}

export function changeBatch(definition: TableDefinition, fromVersion: number, toVersion: number, epoch = 1): BatchDescriptor {
  return {
    batchId: `${definition.table.name}:changes:${fromVersion}:${toVersion}`,
    replicationId: 'r1',
    epoch,
    definition,
    body: { kind: 'changes', fromVersion: String(fromVersion), toVersion: String(toVersion) },
  };
}

/** One warehouse database with a connector and an inspection client; a fresh schema per test. */
export class WarehouseFixture {
  readonly files = new CsvFiles();
  private schemaCount = 0;

  private constructor(
    readonly database: TempDatabase,
    private inspection: Client,
    readonly warehouse: WarehouseConnector,
    private readonly extraConnectors: WarehouseConnector[] = [],
  ) {}

  /** The inspection session. */
  get sql(): Client {
    return this.inspection;
  }

  /** A new inspection session, after the database was dropped and created again. */
  async reconnect(): Promise<void> {
    await this.inspection.end().catch(() => undefined);
    this.inspection = await inspectionSession(this.database);
  }

  static async start(prefix: string): Promise<WarehouseFixture> {
    const database = await createTempDatabase(prefix);
    const sql = await inspectionSession(database);
    return new WarehouseFixture(database, sql, createPostgresWarehouse(connectionTo(database), { statementTimeoutMs: 30_000, bareNameSchemas: TEST_BARE_NAME_SCHEMAS }));
  }

  /** Another connector to the same database (closed by stop). */
  connector(options: Omit<PostgresWarehouseOptions, 'bareNameSchemas'>): WarehouseConnector {
    const connector = createPostgresWarehouse(connectionTo(this.database), { bareNameSchemas: TEST_BARE_NAME_SCHEMAS, ...options });
    this.extraConnectors.push(connector);
    return connector;
  }

  newSchema(): string {
    this.schemaCount += 1;
    return `wh_${this.schemaCount}`;
  }

  options(schema: string, scdType: ScdType, addUpdateTimestamp = false): WarehouseTableOptions {
    return { schema, scdType, addUpdateTimestamp };
  }

  /** Puts the CSV parts where the batch's files point and loads the batch. */
  async load(
    batch: BatchDescriptor,
    csvParts: string[],
    options: WarehouseTableOptions,
    connector: WarehouseConnector = this.warehouse,
  ): Promise<ApplyOutcome> {
    const files = this.stage(batch, csvParts);
    return connector.loadBatch(batch, files, this.files, options);
  }

  stage(batch: BatchDescriptor, csvParts: string[]): StagedFiles {
    const prefix = `folder/${batch.replicationId}/${batch.definition.table.schema}.${batch.definition.table.name}/${batch.batchId}`;
    const partKeys = csvParts.map((csv, index) => {
      const key = `${prefix}/part-${String(index).padStart(5, '0')}.csv.gz`;
      this.files.put(key, csv);
      return key;
    });
    return { bucket: 'bucket', manifestKey: `${prefix}/manifest.json`, partKeys };
  }

  async rows<T extends object>(query: string, values: unknown[] = []): Promise<T[]> {
    return (await this.sql.query<T & Record<string, unknown>>(query, values)).rows;
  }

  async count(qualifiedTable: string): Promise<number> {
    const [row] = await this.rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${qualifiedTable}`);
    return row?.n ?? -1;
  }

  /** What `COPY (query) TO STDOUT (FORMAT csv)` writes: the pipeline's row format. */
  async csv(query: string): Promise<string> {
    const stream = this.sql.query(copyTo(`COPY (${query}) TO STDOUT (FORMAT csv)`));
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async stop(): Promise<void> {
    await Promise.all([this.warehouse, ...this.extraConnectors].map((connector) => connector.close()));
    await this.sql.end();
    await this.database.drop();
  }
}

/** The session closed by a dropped database reports it as an 'error' event: not a crash of the test. */
async function inspectionSession(database: TempDatabase): Promise<Client> {
  const client = new Client({ connectionString: database.url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

function connectionTo(database: TempDatabase): { url: string; databaseName: string; username: string; password: string } {
  const server = new URL(TEST_POSTGRES_URL);
  return {
    url: TEST_POSTGRES_SERVER_URL,
    databaseName: database.name,
    username: decodeURIComponent(server.username) || 'postgres',
    password: decodeURIComponent(server.password),
  };
}
