import { join } from 'node:path';
import { parseOperationRequest } from '@svc/api-model';
import { typescriptWorker } from '@svc/testing';
import { ApiError } from '../api/api-error';
import type { GatewayConfig } from '../config/gateway-config';
import { MAX_REPORTED_PROBLEMS } from './operation-decoding';
import { RequestDecoder } from './request-decoder';

const config = { decodeThreads: 1, decodeTimeoutMs: 10_000 } as GatewayConfig;

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('RequestDecoder (the real decode thread, from the TypeScript sources)', () => {
  const decoder = new RequestDecoder(config, typescriptWorker(join(__dirname, 'decode-worker.ts')));

  beforeAll(() => decoder.onModuleInit(), 60_000);
  afterAll(() => decoder.onModuleDestroy());

  it('returns the same canonical request as parsing on the caller’s thread', async () => {
    const json = '{"replicationId": "3F2504E0-4F89-11D3-9A0C-0305E82C3301"}';
    const payload = await decoder.decode('DescribeWarehouseReplication', 'json', Buffer.from(json));
    expect(payload).toEqual({ replicationId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
    expect(parseOperationRequest('DescribeWarehouseReplication', JSON.parse(json))).toEqual({ ok: true, value: payload });
  });

  it('answers 400 with the API model’s field messages', async () => {
    const xml = '<DescribeWarehouseReplicationRequest><ReplicationId>nope</ReplicationId></DescribeWarehouseReplicationRequest>';
    const error = await refusal(decoder.decode('DescribeWarehouseReplication', 'xml', Buffer.from(xml)));
    expect(error.status).toBe(400);
    expect(error.messages).toEqual([expect.stringMatching(/^\{ReplicationId\}: /)]);
  });

  it('answers 400 to a 1 MiB body of 130,000 elements, refused before parsing', async () => {
    const elements = Array.from({ length: 131_000 }, (_, index) => `<X${index.toString(36)}/>`).join('');
    const xml = `<CreateWarehouseReplicationRequest>${elements}</CreateWarehouseReplicationRequest>`;
    const error = await refusal(decoder.decode('CreateWarehouseReplication', 'xml', Buffer.from(xml)));
    expect(error.status).toBe(400);
    expect(error.messages).toEqual(['the XML body has more than 1000 elements; a request has a few dozen fields']);
  });

  it(`summarises more than ${MAX_REPORTED_PROBLEMS} problems instead of answering every one`, async () => {
    const elements = Array.from({ length: 300 }, (_, index) => `<x${index}/>`).join('');
    const xml = `<CreateWarehouseReplicationRequest>${elements}</CreateWarehouseReplicationRequest>`;
    const error = await refusal(decoder.decode('CreateWarehouseReplication', 'xml', Buffer.from(xml)));
    expect(error.messages).toHaveLength(MAX_REPORTED_PROBLEMS + 1);
    expect(error.messages[MAX_REPORTED_PROBLEMS]).toBe(`… and ${300 - MAX_REPORTED_PROBLEMS} more problems`);
  });

  it('reads a body that is a slice of a larger buffer as just that slice', async () => {
    const pooled = Buffer.from(`garbage{"replicationId": "3F2504E0-4F89-11D3-9A0C-0305E82C3301"}garbage`);
    const payload = await decoder.decode('DescribeWarehouseReplication', 'json', pooled.subarray(7, pooled.length - 7));
    expect(payload).toEqual({ replicationId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
  });
});

describe('RequestDecoder when a body costs more than a thread may spend', () => {
  // Stands in for the decode thread: hangs on the body "hang", dies (as out of memory would) on anything else.
  const stuckThread = {
    script: `
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (task) => {
        if (Buffer.from(task.body).toString() === 'hang') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
        else process.exit(1);
      });
      parentPort.postMessage({ kind: 'ready' });
    `,
    options: { eval: true },
  };
  const decoder = new RequestDecoder({ decodeThreads: 1, decodeTimeoutMs: 300 } as GatewayConfig, stuckThread);

  beforeAll(() => decoder.onModuleInit(), 30_000);
  afterAll(() => decoder.onModuleDestroy());

  it('answers 400, not 500, when reading the body runs past the time limit', async () => {
    const error = await refusal(decoder.decode('ListWarehouseReplications', 'json', Buffer.from('hang')));
    expect(error.status).toBe(400);
    expect(error.messages).toEqual(['the request body took longer than 0.3 s to read; a request has a few dozen fields']);
  });

  it('answers 400, not 500, when the thread reading the body dies, and reads the next body on a new thread', async () => {
    const error = await refusal(decoder.decode('ListWarehouseReplications', 'json', Buffer.from('{}')));
    expect(error.status).toBe(400);
    expect(error.messages).toEqual(['the request body could not be read within the memory a request may use']);
    await expect(refusal(decoder.decode('ListWarehouseReplications', 'json', Buffer.from('hang')))).resolves.toMatchObject({ status: 400 });
  });
});
