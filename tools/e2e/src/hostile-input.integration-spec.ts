import { ADMIN_KEY, TestStack, callSigned, send, signedHeaders, type ApiResponse } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { IAM_ROLE_FIXTURE, createJsonIamRole, createXmlAccessKey } from './fixtures';

const SOURCE_TABLES = `
  create schema sales;
  create table public.orders (id int primary key);
  create table sales.customers (id int primary key);
  create table public.audit_log (at timestamptz);
  create table public.products (id int primary key);
  create table public."a]b" (id int primary key);`;

type Json = Record<string, unknown>;

function errorsOf(response: ApiResponse): string[] {
  return (JSON.parse(response.body) as { errors: string[] }).errors;
}

describe('hostile input through the gateway and the registry (real processes, NATS, PostgreSQL, S3)', () => {
  const stack = new TestStack({ workers: ['extractor'] });
  let replicationId = '';

  beforeAll(async () => {
    await stack.start();
    await stack.prepareIamRole(IAM_ROLE_FIXTURE);
    const client = new Client({ connectionString: stack.source.url });
    await client.connect();
    await client.query(SOURCE_TABLES);
    await client.end();
    const created = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', createJsonIamRole(stack), ADMIN_KEY);
    expect(created.status).toBe(200);
    replicationId = (JSON.parse(created.body) as { replicationId: string }).replicationId;
  }, 120000);

  afterAll(async () => {
    await stack.stop();
  }, 30000);

  const alterJson = (changes: Json) => callSigned(stack.baseUrl, 'AlterWarehouseReplication', 'json', JSON.stringify({ replicationId, ...changes }), ADMIN_KEY);
  const schedule = (lists: Json) => ({ reseedingSchedule: { noPkTablesToInclude: '', pkTablesToInclude: '', ...lists } });

  describe('NUL in a text field is a 400 naming the field, never a 500', () => {
    const NUL = '\u0000';
    const sourceUrl = () => `postgres://postgres@127.0.0.1:5432/${stack.source.name}`;
    const cases: [string, () => Json, string][] = [
      ['SourceConnectionString', () => ({ sourceConnectionString: `${sourceUrl()}${NUL}` }), '{SourceConnectionString}'],
      ['DestinationConnectionString', () => ({ destinationConnectionString: `${sourceUrl()}${NUL}` }), '{DestinationConnectionString}'],
      ['TablesToInclude', () => ({ tablesToInclude: `[public].[orders${NUL}]` }), '{TablesToInclude}'],
      ['NoPkTablesToInclude', () => schedule({ noPkTablesToInclude: `[public].[audit_log${NUL}]` }), '{ReseedingSchedule\\NoPkTablesToInclude}'],
      ['PkTablesToInclude', () => schedule({ pkTablesToInclude: `[public].[products]${NUL}` }), '{ReseedingSchedule\\PkTablesToInclude}'],
      ['Warehouse.Url', () => ({ warehouse: { url: `postgres://127.0.0.1:5432${NUL}` } }), '{Warehouse\\Url}'],
    ];

    it.each(cases)('Alter %s', async (_name, changes, label) => {
      const response = await alterJson(changes());
      expect(response.status).toBe(400);
      expect(errorsOf(response)).toEqual([expect.stringMatching(new RegExp(`^${label.replace(/\\/g, '\\\\')}: .*control character U\\+0000`))]);
    });

    it('Create Source.ConnectionString, in JSON and as an XML character reference', async () => {
      const body = JSON.parse(createJsonIamRole(stack)) as { source: Json };
      body.source['connectionString'] = `${sourceUrl()}${NUL}`;
      const json = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
      expect(json.status).toBe(400);
      expect(errorsOf(json)).toEqual([expect.stringMatching(/^\{Source\\ConnectionString\}: .*U\+0000/)]);
      const xml = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'xml', createXmlAccessKey(stack, { sourceUrl: `${sourceUrl()}&#0;` }), ADMIN_KEY);
      expect(xml.status).toBe(400);
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      expect(xml.body).toMatch(/<Error>\{Source\\ConnectionString\}: [^<]*U\+0000[^<]*<\/Error>/);
    });
  });

  describe('no error quotes a secret', () => {
    const SECRET = 'ZqyG6kDSGQWk';
    const expectNoSecret = (response: ApiResponse) => {
      expect(response.status).toBe(400);
      for (let start = 0; start + 5 <= SECRET.length; start += 1) expect(response.body).not.toContain(SECRET.slice(start, start + 5));
    };

    it.each([
      ['Source\\ConnectionString', (xml: string) => xml.replace(/(<Source>\s*<ConnectionString>)[^<]*/, `$1postgres://u:&${SECRET};@h/db`)],
      ['Staging\\ConnectionString', (xml: string) => xml.replace(/(<Staging>\s*<ConnectionString>)[^<]*/, `$1Server=h;Password=&${SECRET};`)],
      ['Warehouse\\SecretKey', (xml: string) => xml.replace(/(<SecretKey>)[^<]*/, `$1&${SECRET};`)],
      ['Warehouse\\Password', (xml: string) => xml.replace(/(<Password>)[^<]*/, `$1&${SECRET};`)],
    ])('XML entity in %s', async (label, edit) => {
      const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'xml', edit(createXmlAccessKey(stack)), ADMIN_KEY);
      expectNoSecret(response);
      expect(response.body).toContain(`{${label}}: malformed XML`);
    });

    it.each([
      ['source', 'connectionString'],
      ['staging', 'connectionString'],
      ['warehouse', 'password'],
      ['warehouse', 'url'],
    ])('JSON syntax error inside %s.%s', async (group, field) => {
      const body = JSON.parse(createJsonIamRole(stack)) as Record<string, Json>;
      body[group][field] = 'MARK';
      const text = JSON.stringify(body).replace('"MARK"', `"pg://${SECRET}\\q${SECRET}"`);
      expectNoSecret(await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', text, ADMIN_KEY));
    });

    it('credentials in Warehouse.Url are refused, pointing to Username and Password, and not echoed', async () => {
      const response = await alterJson({ warehouse: { url: `postgres://dw:${SECRET}@127.0.0.1:5432` } });
      expectNoSecret(response);
      expect(errorsOf(response)).toEqual([
        '{Warehouse\\Url}: invalid value. A warehouse URL must not carry a user name or password: give them in {Warehouse\\Username} and {Warehouse\\Password}',
      ]);
    });
  });

  describe('the host policy (issue 36): no spelling of the control database, and no socket, is reached', () => {
    // The stack allows loopback (ALLOW_LOOPBACK_TARGETS=true), as npm start does; its control database is on 127.0.0.1:5432.
    const createWithSource = (connectionString: string) => {
      const body = JSON.parse(createJsonIamRole(stack)) as { source: Json };
      body.source['connectionString'] = connectionString;
      return callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    };
    const cases: [string, () => string, RegExp][] = [
      ['the control database as an IPv4-mapped address', () => `postgres://postgres@[::ffff:127.0.0.1]:5432/${stack.control.name}`, /own control database/],
      ['the control database as a hex IPv4 address', () => `postgres://postgres@0x7f.1:5432/${stack.control.name}`, /own control database/],
      ['the control database over its Unix socket', () => `postgres://postgres@%2Fvar%2Frun%2Fpostgresql/${stack.control.name}`, /path or socket/],
      ['a socket directory in the query', () => `postgres://postgres@db.example.com/${stack.control.name}?host=%2Fvar%2Frun%2Fpostgresql`, /in its query/],
      ['a cloud metadata address as NAT64', () => `postgres://postgres@[64:ff9b::a9fe:a9fe]:5432/x`, /cloud metadata/],
    ];

    it.each(cases)('Create refuses %s, naming the field and the rule', async (_name, connectionString, rule) => {
      const response = await createWithSource(connectionString());
      expect(response.status).toBe(400);
      expect(errorsOf(response)).toEqual([expect.stringMatching(/^\{Source\\ConnectionString\}: names /)]);
      expect(errorsOf(response)[0]).toMatch(rule);
      expect(response.body).not.toContain(stack.control.name);
    });

    it.each(cases)('Alter refuses %s as SourceConnectionString', async (_name, connectionString, rule) => {
      const response = await alterJson({ sourceConnectionString: connectionString() });
      expect(response.status).toBe(400);
      expect(errorsOf(response)).toEqual([expect.stringMatching(/^\{SourceConnectionString\}: names /)]);
      expect(errorsOf(response)[0]).toMatch(rule);
    });

    it('Alter refuses a Warehouse.Url whose host is a socket directory', async () => {
      // The password goes with a changed Url (a stored secret is never sent to another server).
      const response = await alterJson({ warehouse: { url: 'postgres://%2Fvar%2Frun%2Fpostgresql:5432', password: 'postgres' } });
      expect(response.status).toBe(400);
      expect(errorsOf(response)).toEqual([expect.stringMatching(/^\{Warehouse\\Url\}: names a path or socket/)]);
    });
  });

  it.each(['toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'])('refuses an unknown field named %s in JSON and XML', async (name) => {
    const json = await callSigned(stack.baseUrl, 'DescribeWarehouseReplication', 'json', JSON.stringify({ replicationId, [name]: 'x' }), ADMIN_KEY);
    expect(json.status).toBe(400);
    expect(errorsOf(json)).toEqual([expect.stringMatching(/: unknown field/)]);
    const element = name.charAt(0).toUpperCase() + name.slice(1);
    const xmlBody = `<DescribeWarehouseReplicationRequest><ReplicationId>${replicationId}</ReplicationId><${element}>x</${element}></DescribeWarehouseReplicationRequest>`;
    const xml = await callSigned(stack.baseUrl, 'DescribeWarehouseReplication', 'xml', xmlBody, ADMIN_KEY);
    expect(xml.status).toBe(400);
    expect(xml.body).toMatch(/unknown field/);
  });

  describe('tables', () => {
    it('refuses tables the source does not have, naming them', async () => {
      const response = await alterJson({ tablesToInclude: '[public].[orders], [public].[nope]' });
      expect(response.status).toBe(400);
      expect(errorsOf(response)).toEqual(['{TablesToInclude}: [public].[nope] does not exist in the source']);
      const reseed = await alterJson(schedule({ noPkTablesToInclude: '[public].[gone]', fromTime: '01:00:00 AM', toTime: '02:00:00 AM', repeatIntervalInMinutes: '60' }));
      expect(errorsOf(reseed)).toEqual(['{ReseedingSchedule\\NoPkTablesToInclude}: [public].[gone] does not exist in the source']);
    });

    it('creates a replication of a table named a]b, which discovery finds and Describe lists', async () => {
      const body: Json = { ...(JSON.parse(createJsonIamRole(stack)) as Json), tablesToInclude: '[public].[a]]b]' };
      delete body['reseedingSchedule'];
      const created = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
      expect(created.status).toBe(200);
      const id = (JSON.parse(created.body) as { replicationId: string }).replicationId;
      let tables: string[] = [];
      await waitUntil(async () => {
        const described = await callSigned(stack.baseUrl, 'DescribeWarehouseReplication', 'json', JSON.stringify({ replicationId: id }), ADMIN_KEY);
        tables = (JSON.parse(described.body) as { tables: { name: string }[] }).tables.map((table) => table.name);
        return tables.length > 0;
      }, 30000, 'the table of the new replication in Describe');
      expect(tables).toEqual(['[public].[a]]b]']);
    }, 60000);
  });

  describe('every answer carries the request content type', () => {
    const operations: [string, string, string][] = [
      ['AlterWarehouseReplication', 'json', '{"replicationId":"ID","parallelTablesLimit":"5"}'],
      ['AlterWarehouseReplication', 'xml', '<AlterWarehouseReplicationRequest><ReplicationId>ID</ReplicationId><ParallelTablesLimit>6</ParallelTablesLimit></AlterWarehouseReplicationRequest>'],
      ['AlterConfiguration', 'json', '{"parallelDatabaseReplicationsLimit":"3"}'],
      ['AlterConfiguration', 'xml', '<AlterConfigurationRequest><ParallelDatabaseReplicationsLimit>4</ParallelDatabaseReplicationsLimit></AlterConfigurationRequest>'],
      ['StopReplicationService', 'xml', '<StopReplicationServiceRequest/>'],
      ['StartReplication', 'xml', '<StartReplicationRequest/>'],
      ['StopReplicationService', 'json', '{}'],
      ['StartReplication', 'json', '{}'],
      ['ListWarehouseReplications', 'xml', ''],
      ['DescribeWarehouseReplication', 'xml', '<DescribeWarehouseReplicationRequest><ReplicationId>00000000-0000-4000-8000-000000000000</ReplicationId></DescribeWarehouseReplicationRequest>'],
      ['NoSuchOperation', 'xml', '<X/>'],
    ];

    it.each(operations)('%s (%s)', async (operation, format, body) => {
      const response = await callSigned(stack.baseUrl, operation, format as 'xml' | 'json', body.replace('ID', replicationId), ADMIN_KEY);
      expect(response.headers['content-type']).toMatch(format === 'xml' ? /^application\/xml; charset=utf-8$/ : /^application\/json; charset=utf-8$/);
    });
  });

  describe('repeated signing headers', () => {
    const body = '{}';
    const signed = () => signedHeaders(stack.baseUrl, 'ListWarehouseReplications', 'application/json', body, ADMIN_KEY);
    const withRepeat = (name: string, second: (value: string) => string) => {
      const headers: Record<string, string | string[]> = { ...signed() };
      const key = Object.keys(headers).find((header) => header.toLowerCase() === name) ?? name;
      const value = String(headers[key]);
      headers[key] = [value, second(value)];
      return headers;
    };

    it('accepts the request signed once', async () => {
      expect((await send(stack.baseUrl, 'POST', '/api/ListWarehouseReplications', signed(), body)).status).toBe(200);
    });

    it.each([
      ['authorization', (value: string) => value],
      ['authorization', () => 'SVC4-HMAC-SHA256 Credential=SVCNOSUCHKEY00000000/20240101/us-east-1/replication/svc4_request, SignedHeaders=host, Signature=00'],
      ['x-svc-date', (value: string) => value],
      ['x-svc-content-sha256', (value: string) => value],
    ])('refuses two %s headers with 403', async (name, second) => {
      const response = await send(stack.baseUrl, 'POST', '/api/ListWarehouseReplications', withRepeat(name, second), body);
      expect(response.status).toBe(403);
      expect(errorsOf(response).join(' ')).toMatch(new RegExp(`${name}.*more than once`, 'i'));
    });
  });
});
