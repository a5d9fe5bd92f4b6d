import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRequest } from '@svc/api-codec';
import { parseOperationRequest } from '@svc/api-model';

const examples = join(__dirname, '..', '..', '..', 'examples', 'compose');

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
