import { ExitCode } from '../exit-codes';
import type { SendOperationInput, SendOutcome } from '../http/send-operation';
import { WATCH_CALL_TIMEOUT_MS, describePoller } from './describe-poll';

const SETTINGS = { endpoint: 'http://gw:8080', region: 'us-east-1', credentials: { accessKeyId: 'AK', secretKey: 'secret' } };

function json(status: number, body: unknown): SendOutcome {
  return { kind: 'response', status, headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) };
}

async function pollOnce(outcome: SendOutcome): Promise<{ result: Awaited<ReturnType<ReturnType<typeof describePoller>>>; sent: SendOperationInput[] }> {
  const sent: SendOperationInput[] = [];
  const poll = describePoller(async (input) => (sent.push(input), outcome), SETTINGS, 'r-1');
  return { result: await poll(new AbortController().signal), sent };
}

describe('describePoller', () => {
  it('sends a signed JSON Describe with a bounded wait and the abort signal, and reads the description', async () => {
    const { result, sent } = await pollOnce(json(200, { replicationId: 'r-1', status: 'Running', tables: [{ name: 't', phase: 'Seeding', rowsSeeded: '5' }] }));
    expect(sent[0]).toMatchObject({ ...SETTINGS, operation: 'DescribeWarehouseReplication', contentType: 'application/json', timeoutMs: WATCH_CALL_TIMEOUT_MS });
    expect(sent[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(sent[0]?.body.toString()).toBe('{"replicationId":"r-1"}');
    expect(result).toEqual({
      kind: 'snapshot',
      snapshot: {
        replicationId: 'r-1',
        replicationName: '',
        status: 'Running',
        lastError: null,
        alerts: [],
        tables: [{ name: 't', phase: 'Seeding', rowsSeeded: 5, rowsEstimated: 0, lagSeconds: null, lastError: null, inFlightSeconds: null }],
      },
    });
  });

  it('treats a refused connection, 5xx, 408 and 429 as transient', async () => {
    expect((await pollOnce({ kind: 'unreachable', message: 'cannot reach http://gw:8080: connection refused' })).result).toEqual({
      kind: 'transient',
      message: 'cannot reach http://gw:8080: connection refused',
      unreachable: true,
    });
    expect((await pollOnce(json(503, { errors: ['registry not answering'], requestId: 4 }))).result).toEqual({
      kind: 'transient',
      message: 'HTTP 503 (request 4): registry not answering',
      unreachable: false,
    });
    for (const status of [500, 502, 408, 429]) expect((await pollOnce(json(status, ''))).result.kind).toBe('transient');
  });

  it('ends on other errors like a plain describe, its messages escaped for the terminal', async () => {
    expect((await pollOnce(json(404, { errors: ['no replication \u001B[2J r-1'], requestId: 5 }))).result).toEqual({
      kind: 'fatal',
      exitCode: ExitCode.Failed,
      stderr: 'Error: HTTP 404 (request 5)\n  - no replication \\x1B[2J r-1\n',
    });
    expect((await pollOnce(json(403, { errors: ['the request signature does not match'], requestId: 6 }))).result).toMatchObject({ kind: 'fatal', exitCode: ExitCode.Failed });
  });

  it('ends when a 200 is not a JSON description (a proxy page, say)', async () => {
    expect((await pollOnce(json(200, '<html>hello</html>'))).result).toEqual({
      kind: 'fatal',
      exitCode: ExitCode.Failed,
      stderr: 'Error: HTTP 200: the answer is not a JSON replication description\n',
    });
  });
});
