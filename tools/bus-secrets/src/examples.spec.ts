import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRequest } from '@svc/api-codec';
import { parseOperationRequest } from '@svc/api-model';
import type { OperationName } from '@svc/contracts';

const examplesRoot = join(__dirname, '..', '..', '..', 'examples');
const examples = join(examplesRoot, 'compose');

/** Issue 20: the README's examples named 127.0.0.1 and the embedded S3 server's keys, which cannot work inside containers. */
describe('examples/compose', () => {
  it.each(readdirSync(examples).filter((file) => file.startsWith('create-')))('%s is a valid Create for the services inside compose', (file) => {
    const text = readFileSync(join(examples, file), 'utf8');
    const decoded = decodeRequest('CreateWarehouseReplication', file.endsWith('.xml') ? 'xml' : 'json', Buffer.from(text));
    if (!decoded.ok) throw new Error(decoded.messages.join('; '));
    const parsed = parseOperationRequest('CreateWarehouseReplication', decoded.tree);
    if (!parsed.ok) throw new Error(parsed.messages.join('; '));
    const { source, staging, warehouse } = parsed.value;
    // Services reach PostgreSQL and MinIO by their compose names, never loopback.
    for (const url of [source.connectionString, staging.connectionString, warehouse.url]) expect(url).toMatch(/^postgres:\/\/([^@/]+@)?postgres:5432(\/|$)/);
    // The placeholders the README's first-run section fills in from .env and deploy/secrets/env/s3.env.
    expect([warehouse.accessKey, warehouse.secretKey]).toEqual(['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']);
    expect(text).toContain('POSTGRES_PASSWORD');
  });
});

/** Issue 20: examples/alter-replication.json was not valid JSON. Every example is a request the service accepts. */
describe('examples', () => {
  const OPERATIONS: Record<string, OperationName> = {
    'create-replication.xml': 'CreateWarehouseReplication',
    'create-replication.json': 'CreateWarehouseReplication',
    'alter-replication.json': 'AlterWarehouseReplication',
  };

  it('are every example there is', () => {
    expect(readdirSync(examplesRoot).filter((file) => /\.(json|xml)$/.test(file)).sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it.each(Object.entries(OPERATIONS))('%s decodes and validates as %s', (file, operation) => {
    const text = readFileSync(join(examplesRoot, file), 'utf8');
    if (file.endsWith('.json')) expect(() => JSON.parse(text) as unknown).not.toThrow();
    const decoded = decodeRequest(operation, file.endsWith('.xml') ? 'xml' : 'json', Buffer.from(text));
    if (!decoded.ok) throw new Error(decoded.messages.join('; '));
    const parsed = parseOperationRequest(operation, decoded.tree);
    if (!parsed.ok) throw new Error(parsed.messages.join('; '));
  });
});
