import { randomUUID } from 'node:crypto';
import { ADMIN_KEY, TestStack, callSigned, type ApiResponse } from '@svc/system-testing';

interface Key {
  accessKeyId: string;
  secretKey: string;
}

const RATE_PER_SECOND = 1;
const BURST = 30;
const ENTRIES_PER_KEY = 10;

/**
 * Issue 36, item 6: one access key filling the replay cache, or flooding the gateway, denied every other key. Each key
 * now has its own share of the replay cache and its own token bucket; small ones here, so that a test reaches them.
 */
describe('api-gateway: each access key its own share of the replay cache and its own rate (gateway and registry from dist/)', () => {
  const stack = new TestStack({ env: { KEY_RATE_LIMIT_PER_SECOND: String(RATE_PER_SECOND), KEY_RATE_LIMIT_BURST: String(BURST), REPLAY_ENTRIES_PER_KEY: String(ENTRIES_PER_KEY) } });

  beforeAll(() => stack.start(), 90_000);
  afterAll(() => stack.stop(), 30_000);

  const call = (operation: string, body: unknown, key: Key, format: 'json' | 'xml' = 'json'): Promise<ApiResponse> =>
    callSigned(stack.baseUrl, operation, format, format === 'json' ? JSON.stringify(body) : String(body), key);
  const errorsOf = (response: ApiResponse): unknown => (JSON.parse(response.body) as { errors?: unknown }).errors;

  async function tenantKey(): Promise<Key> {
    const created = await call('CreateAccessKey', { allowedOperations: ['DeleteWarehouseReplication', 'ListWarehouseReplications'] }, ADMIN_KEY);
    expect(created.status).toBe(200);
    const { accessKeyId, secretAccessKey } = JSON.parse(created.body) as { accessKeyId: string; secretAccessKey: string };
    return { accessKeyId, secretKey: secretAccessKey };
  }

  it("refuses a key that filled its share of the replay cache with 429, and answers another key's calls that change state", async () => {
    const [flooder, bystander] = [await tenantKey(), await tenantKey()];
    // Deletes of replications that do not exist: 404 each, and each signature is remembered all the same.
    const deleteSomething = (key: Key) => call('DeleteWarehouseReplication', { replicationId: randomUUID() }, key);
    for (let sent = 0; sent < ENTRIES_PER_KEY; sent += 1) expect((await deleteSomething(flooder)).status).toBe(404);
    const refused = await deleteSomething(flooder);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(errorsOf(refused)).toEqual([expect.stringMatching(/^too many calls that change state with this access key/)]);

    const answered = await deleteSomething(bystander);
    expect({ status: answered.status, errors: errorsOf(answered) }).toMatchObject({ status: 404 });
  });

  it('answers a key over its rate 429 with Retry-After, in the format it asked, while another key is served', async () => {
    const [flooder, bystander] = [await tenantKey(), await tenantKey()];
    // Well over the burst: on a loaded machine the calls reach the bucket over seconds (each is checked by the registry first), refilling it meanwhile.
    const answers = await Promise.all(Array.from({ length: BURST + 40 }, () => call('ListWarehouseReplications', {}, flooder)));
    const limited = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(BURST - 2);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(errorsOf(limited[0])).toEqual([expect.stringMatching(/^too many calls with this access key/)]);

    // The bucket refills a token a second meanwhile: the first XML call may take it, the next ones find it empty.
    const xmlCalls = [];
    for (let attempt = 0; attempt < 5 && xmlCalls.at(-1)?.status !== 429; attempt += 1) {
      xmlCalls.push(await call('ListWarehouseReplications', '<?xml version="1.0" encoding="UTF-8"?><ListWarehouseReplicationsRequest/>', flooder, 'xml'));
    }
    const asXml = xmlCalls.at(-1);
    expect(asXml?.status).toBe(429);
    expect(asXml?.headers['content-type']).toMatch(/^application\/xml/);
    expect(asXml?.body).toMatch(/<ErrorResponse><RequestId>\d+<\/RequestId><Errors><Error>too many calls with this access key/);

    expect((await call('ListWarehouseReplications', {}, bystander)).status).toBe(200);
  });

  it('spends no call of a key that a forged call merely names, and refuses a spent key before asking the registry', async () => {
    const [victim, flooder] = [await tenantKey(), await tenantKey()];
    const forged = { ...victim, secretKey: 'not-the-secret' };
    const forgedAnswers = await Promise.all(Array.from({ length: BURST + 10 }, () => call('ListWarehouseReplications', {}, forged)));
    expect(new Set(forgedAnswers.map((answer) => answer.status))).toEqual(new Set([403]));
    expect((await call('ListWarehouseReplications', {}, victim)).status).toBe(200);

    await Promise.all(Array.from({ length: BURST + 40 }, () => call('ListWarehouseReplications', {}, flooder)));
    // Spent to the last token (the bucket refills one a second meanwhile): a call answered 429 has just found it empty.
    for (let attempt = 0; attempt < 10 && (await call('ListWarehouseReplications', {}, flooder)).status !== 429; attempt += 1);
    // The flooder's bucket is empty: even a call with a wrong signature naming it is answered 429, not checked.
    const spent = await call('ListWarehouseReplications', {}, { ...flooder, secretKey: 'not-the-secret' });
    expect(spent.status).toBe(429);
  });
});
