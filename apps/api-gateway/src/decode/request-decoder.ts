import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { WireFormat } from '@svc/api-codec';
import type { OperationName, OperationRequest } from '@svc/contracts';
import { ApiError } from '../api/api-error';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import type { DecodeOutcome, DecodeTask } from './operation-decoding';
import { WorkerPool, WorkerTaskAbandoned, type WorkerSource } from './worker-pool';

export const DECODE_WORKER_SOURCE = Symbol('DECODE_WORKER_SOURCE');

/** Far more than reading any body within the structural limits needs; a body that needs more kills only its thread. */
const DECODE_THREAD_HEAP_MB = 256;

/** The compiled thread entry next to this file: dist/apps/api-gateway/src/decode/decode-worker.js. */
export function compiledDecodeWorker(): WorkerSource {
  const script = join(__dirname, 'decode-worker.js');
  if (!existsSync(script)) throw new Error(`the decode thread's script ${script} is missing; the gateway runs from the build (npm run build)`);
  return { script };
}

/**
 * Reads and validates request bodies on a pool of worker threads: parsing a hostile 1 MiB body costs a thread
 * up to its time limit, never the event loop that answers every other caller (and /health).
 */
@Injectable()
export class RequestDecoder implements OnModuleInit, OnModuleDestroy {
  private readonly pool: WorkerPool<DecodeTask, DecodeOutcome>;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig, @Inject(DECODE_WORKER_SOURCE) source: WorkerSource) {
    this.pool = new WorkerPool(source, { size: config.decodeThreads, taskTimeoutMs: config.decodeTimeoutMs, maxHeapMb: DECODE_THREAD_HEAP_MB });
  }

  /** The gateway does not start with threads that cannot load their script. */
  onModuleInit(): Promise<void> {
    return this.pool.ready();
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.close();
  }

  /** The operation's canonical request; an ApiError 400 listing the problems otherwise. */
  async decode(operation: OperationName, format: WireFormat, body: Buffer): Promise<OperationRequest<OperationName>> {
    // A copy with its own memory: `body` may be a slice of Node's shared buffer pool.
    const task: DecodeTask = { operation, format, body: new Uint8Array(body) };
    const outcome = await this.pool.run(task).catch((error: unknown) => {
      if (!(error instanceof WorkerTaskAbandoned)) throw error;
      throw new ApiError(400, [
        error.reason === 'timeout'
          ? `the request body took longer than ${this.config.decodeTimeoutMs / 1000} s to read; a request has a few dozen fields`
          : 'the request body could not be read within the memory a request may use',
      ]);
    });
    if (!outcome.ok) throw new ApiError(400, outcome.messages);
    return outcome.payload;
  }
}
