import { Injectable } from '@nestjs/common';
import { ErrorCode, guardChangedTablesRequest, parseTableKey, rpcError, rpcOk, tableKey, type ChangedTablesReply, type RpcReply } from '@svc/contracts';
import type { TableWatermark } from '@svc/engines';
import { JsonLogger } from '@svc/logging';
import { EngineRegistry, RuntimeConfigClient, classifyFailure, failureLogFields } from '@svc/pipeline-runtime';

/** Tells the registry which tracked tables of a replication have changes past their watermark: one probe of the source for all. */
@Injectable()
export class ChangedTablesService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly logger: JsonLogger,
  ) {}

  async changedTables(message: unknown): Promise<RpcReply<ChangedTablesReply>> {
    const guarded = guardChangedTablesRequest(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { replicationId, tables, schemaStamps: withSchemaStamps = true } = guarded.value;
    const watermarks: TableWatermark[] = [];
    const unreadable: string[] = [];
    for (const { tableName, version, incarnation } of tables) {
      const table = parseTableKey(tableName);
      if (table === null) unreadable.push(tableName);
      else watermarks.push({ table, version, ...(incarnation !== undefined && { incarnation }) });
    }
    try {
      const config = await this.configs.configOf(replicationId);
      const { changed, unknown, schemaStamps, walHeldBytes } = await this.engines.source(config).changedTables(watermarks, { schemaStamps: withSchemaStamps });
      return rpcOk({
        changed: changed.map(tableKey),
        unknown: [...unknown.map(tableKey), ...unreadable],
        schemaStamps: Object.fromEntries(schemaStamps.map(({ table, stamp }) => [tableKey(table), stamp])),
        ...(walHeldBytes !== undefined && { walHeldBytes }),
      });
    } catch (error) {
      const verdict = classifyFailure(error, { endpoint: 'Source' });
      // The registry gets the classified reason; this service's log also says what the server said and where.
      this.logger.warn('change probe failed', { replicationId, ...failureLogFields(error, verdict) });
      return rpcError(ErrorCode.Unavailable, [verdict.reason]);
    }
  }
}
