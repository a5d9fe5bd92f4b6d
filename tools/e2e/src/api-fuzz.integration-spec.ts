import { connect } from 'node:net';
import { ADMIN_KEY, TestStack, send, type ApiResponse } from '@svc/system-testing';
import { SVC4_SCHEME, signRequest } from '@svc/signing';
import { Client } from 'pg';
import { fuzzCase, type FuzzCase, type FuzzContext } from './fuzz/fuzz-cases';
import { answerProblems, leakedPiece, markerPieces } from './fuzz/fuzz-oracle';
import { Random } from './fuzz/random';

/**
 * Mutated, correctly signed requests against the real gateway and registry processes. Reproducible: the seed
 * and each failing case's index are printed, and FUZZ_CASE=<index> replays one case alone.
 *   FUZZ_SEED     seed of the run (default fixed, so that CI runs the same cases every time)
 *   FUZZ_REQUESTS how many cases (default 4000, about 10 s); e.g. FUZZ_REQUESTS=50000 for a long run (90 s)
 *   FUZZ_CASE     run only this case
 */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_260_808);
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 4000);
const ONLY_CASE = process.env['FUZZ_CASE'] === undefined ? null : Number(process.env['FUZZ_CASE']);
const CONCURRENCY = 6;
/** How many failing cases the report lists (FUZZ_REPORT). */
const REPORTED_FAILURES = Number(process.env['FUZZ_REPORT'] ?? 15);

const SOURCE_TABLES = `
  create table public.orders (id int primary key);
  create table public.audit_log (at timestamptz);`;

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sendSigned(baseUrl: string, fuzzCase: FuzzCase): Promise<ApiResponse> {
  const url = new URL(fuzzCase.path, baseUrl);
  const query = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) query.set(name, [...(query.get(name) ?? []), value]);
  const body = BODYLESS_METHODS.has(fuzzCase.method) ? Buffer.alloc(0) : fuzzCase.body;
  const headers = signRequest(
    SVC4_SCHEME,
    { method: fuzzCase.method, path: url.pathname, query: Object.fromEntries(query), headers: { host: url.host, ...fuzzCase.headers, 'content-length': String(body.length) }, body },
    ADMIN_KEY,
    { region: 'us-east-1', service: 'replication' },
  );
  return send(baseUrl, fuzzCase.method, fuzzCase.path, headers, body);
}

/**
 * Writes bytes as they are (no client rewriting the request line or the framing) and reads until the server
 * closes. The socket is not half-closed: Node's server drops a request whose client ended its side.
 */
function sendRawBytes(baseUrl: string, head: string, body: Buffer = Buffer.alloc(0)): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(error)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(Buffer.concat([Buffer.from(head), body]));
  });
}

/** Status, headers and body of every HTTP answer in a raw exchange. */
function parseAnswers(raw: string): { status: number; contentType: string; body: string }[] {
  const answers: { status: number; contentType: string; body: string }[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, headEnd);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    const body = rest.slice(headEnd + 4, headEnd + 4 + length);
    answers.push({ status: Number(head.slice(9, 12)), contentType: /\r\ncontent-type: *([^\r]*)/i.exec(head)?.[1] ?? '', body });
    rest = rest.slice(headEnd + 4 + Buffer.byteLength(body));
  }
  return answers;
}

function excerpt(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
}

describe('API fuzz: mutated signed requests through the real gateway and registry', () => {
  // One key sends every case as fast as it can: the per-key limits (issue 36) would answer most of them 429 unread.
  const stack = new TestStack({ env: { KEY_RATE_LIMIT_PER_SECOND: '1000000', KEY_RATE_LIMIT_BURST: '1000000', REPLAY_ENTRIES_PER_KEY: '100000' } });
  const marker = `Zq7x${new Random(SEED).text(8, 'ABCDEFGHJKMNPQRSTUVWXYZ23456789')}`;
  const pieces = markerPieces(marker);
  let context: FuzzContext;

  beforeAll(async () => {
    await stack.start();
    // The IAMRole bodies' role trusts the service with the ExternalId it issues to the admin key, as a customer's would.
    await stack.prepareIamRole({ accountId: '123456789012', roleName: 'svc-writer', bucketName: 'fuzz-bucket' });
    const client = new Client({ connectionString: stack.source.url });
    await client.connect();
    await client.query(SOURCE_TABLES);
    await client.end();
    context = {
      marker,
      replicationId: '',
      sourceDatabase: stack.source.name,
      stagingDatabase: stack.staging.name,
      warehouseDatabase: stack.warehouse.name,
      s3: { accessKeyId: stack.s3.accessKeyId, secretAccessKey: stack.s3.secretAccessKey },
    };
    // The replication the Alter, Describe and Start cases work on: the first case that creates one.
    for (let index = 0; context.replicationId === ''; index += 1) {
      const candidate = fuzzCase(SEED, -1 - index, context);
      if (!candidate.steps[0]?.startsWith('POST') || candidate.steps.length > 1 || !candidate.path.endsWith('/CreateWarehouseReplication')) continue;
      const created = await sendSigned(stack.baseUrl, candidate);
      expect(created.status).toBe(200);
      const id = /"replicationId":"([^"]+)"|<ReplicationId>([^<]+)</.exec(created.body);
      context.replicationId = id?.[1] ?? id?.[2] ?? '';
    }
  }, 120_000);

  afterAll(() => stack.stop(), 30_000);

  it(
    `never answers 5xx, always in the request's format, and never quotes or logs a secret (seed ${SEED}, ${ONLY_CASE === null ? REQUESTS : 1} cases)`,
    async () => {
      const indexes = ONLY_CASE === null ? Array.from({ length: REQUESTS }, (_, index) => index) : [ONLY_CASE];
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let next = 0;
      const worker = async () => {
        while (next < indexes.length) {
          const index = indexes[next++] ?? 0;
          const request = fuzzCase(SEED, index, context);
          const response = await sendSigned(stack.baseUrl, request).catch((error: unknown): ApiResponse => ({ status: 0, headers: {}, body: `connection failed: ${String(error)}` }));
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const problems = response.status === 0 ? [response.body] : answerProblems(request, response, pieces);
          if (problems.length > 0) {
            failures.push(
              `#${index} ${request.steps.join(' | ')}\n    sent ${excerpt(request.body.toString('utf8'))}` +
                `\n    → ${response.status} ${String(response.headers['content-type'])}: ${problems.join('; ')}\n    ${excerpt(response.body)}`,
            );
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      const leakingLine = stack
        .logs()
        .split('\n')
        .find((line) => leakedPiece(line, pieces) !== null);
      if (leakingLine !== undefined) failures.push(`a log line quotes part of a secret:\n    ${excerpt(leakingLine)}`);
      const summary = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
      if (failures.length > 0) {
        throw new Error(
          `${failures.length} problems (seed ${SEED}; statuses ${summary}). Replay one case with FUZZ_SEED=${SEED} FUZZ_CASE=<#>.\n` +
            failures.slice(0, REPORTED_FAILURES).join('\n'),
        );
      }
      // The run reached the registry, not only the gateway's refusals: some changes were applied.
      if (ONLY_CASE === null) expect(statuses.get(200) ?? 0).toBeGreaterThan(REQUESTS / 20);
      expect(stack.logs()).not.toContain('unexpected failure');
    },
    Math.max(120_000, REQUESTS * 60),
  );

  describe("the framework's own error paths answer with the API's error body", () => {
    const jsonError = (answer: { status: number; contentType: string; body: string } | undefined, status: number) => {
      expect(answer).toMatchObject({ status, contentType: 'application/json; charset=utf-8' });
      const parsed = JSON.parse(answer?.body ?? '') as { errors?: unknown; requestId?: unknown };
      expect(Array.isArray(parsed.errors) && parsed.errors.length === 1 && typeof parsed.errors[0] === 'string').toBe(true);
      expect(typeof parsed.requestId).toBe('number');
    };
    const xmlError = (answer: { status: number; contentType: string; body: string } | undefined, status: number) => {
      expect(answer).toMatchObject({ status, contentType: 'application/xml; charset=utf-8' });
      expect(answer?.body).toMatch(/^<\?xml [^>]*\?>\s*<ErrorResponse><RequestId>\d+<\/RequestId><Errors><Error>[^<]+<\/Error><\/Errors><\/ErrorResponse>$/);
    };
    const host = () => new URL(stack.baseUrl).host;

    it.each([
      ['malformed percent-encoding', '/api/%E0%A4%A'],
      ['a lone percent sign', '/api/%'],
      ['a dot-dot segment', '/api/../api/ListWarehouseReplications'],
      ['the root', '/'],
      ['an encoded NUL', '/api/List%00'],
    ])('%s in the path (XML request)', async (_name, path) => {
      const raw = await sendRawBytes(stack.baseUrl, `POST ${path} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/xml\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      const [answer] = parseAnswers(raw);
      expect(answer?.status).toBeGreaterThanOrEqual(400);
      expect(answer?.status).toBeLessThan(500);
      xmlError(answer, answer?.status ?? 0);
    });

    it.each(['HEAD', 'OPTIONS', 'GET', 'TRACE'])('%s on an operation is 405 with Allow: POST', async (method) => {
      const raw = await sendRawBytes(stack.baseUrl, `${method} /api/ListWarehouseReplications HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`);
      expect(raw).toMatch(/^HTTP\/1\.1 405 /);
      expect(raw).toMatch(/\r\nallow: POST\r\n/i);
      expect(raw).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      if (method !== 'HEAD') jsonError(parseAnswers(raw)[0], 405);
    });

    it('reads a signed body sent chunked, without Content-Length', async () => {
      const body = '{}';
      const signed = signRequest(
        SVC4_SCHEME,
        { method: 'POST', path: '/api/ListWarehouseReplications', headers: { host: host(), 'content-type': 'application/json' }, body },
        ADMIN_KEY,
        { region: 'us-east-1', service: 'replication' },
      );
      const lines = Object.entries(signed).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      const raw = await sendRawBytes(stack.baseUrl, `POST /api/ListWarehouseReplications HTTP/1.1\r\n${lines}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n`, Buffer.from(`2\r\n${body}\r\n0\r\n\r\n`));
      const [answer] = parseAnswers(raw);
      expect(answer?.status).toBe(200);
      expect(answer?.contentType).toBe('application/json; charset=utf-8');
    });

    it('refuses a chunked body over the limit with 413 in the request format', async () => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const chunks = Buffer.concat([...Array.from({ length: 20 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n')]);
      // A well-formed, current signature gets the body read (a malformed one is refused before it); the size is refused while streaming.
      const signed = signRequest(
        SVC4_SCHEME,
        { method: 'POST', path: '/api/ListWarehouseReplications', headers: { host: host(), 'content-type': 'application/xml' }, body: '' },
        ADMIN_KEY,
        { region: 'us-east-1', service: 'replication' },
      );
      const lines = Object.entries(signed).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      const raw = await sendRawBytes(stack.baseUrl, `POST /api/ListWarehouseReplications HTTP/1.1\r\n${lines}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n`, chunks);
      xmlError(parseAnswers(raw)[0], 413);
    });

    it('answers a body longer than its Content-Length claims, and the bytes after it, with API error bodies', async () => {
      const body = Buffer.alloc(1024 * 1024 + 4096, 0x41);
      const raw = await sendRawBytes(stack.baseUrl, `POST /api/ListWarehouseReplications HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n`, body);
      const answers = parseAnswers(raw);
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers) jsonError(answer, answer.status);
      expect(answers[0]?.status).toBe(403);
    });

    it('refuses a request without Authorization before its 1 MiB body arrives', async () => {
      const started = performance.now();
      const raw = await sendRawBytes(stack.baseUrl, `POST /api/ListWarehouseReplications HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/xml\r\nContent-Length: ${1024 * 1024}\r\nConnection: close\r\n\r\n`);
      xmlError(parseAnswers(raw)[0], 403);
      expect(performance.now() - started).toBeLessThan(5000);
    });

    it('refuses a Content-Length over the limit with 413 before reading the body', async () => {
      const raw = await sendRawBytes(stack.baseUrl, `POST /api/ListWarehouseReplications HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/xml\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n`, Buffer.from('<a/>'));
      xmlError(parseAnswers(raw)[0], 413);
    });

    it('answers a request Node cannot parse (bad header line) with a JSON error body', async () => {
      const raw = await sendRawBytes(stack.baseUrl, `POST /api/ListWarehouseReplications HTTP/1.1\r\nHost: ${host()}\r\nBad Header\r\n\r\n`);
      const [answer] = parseAnswers(raw);
      jsonError(answer, 400);
    });
  });
});
