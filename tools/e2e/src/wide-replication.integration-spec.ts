import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { ENGINE_PAIRS, MARIADB_PAIR_PREFIX, TRIGGER_PAIR_PREFIX, describeEachPair, leftOut, selectedPairs, type EnginePair, type SourceSession, type WarehouseSession } from './engine-pairs';
import { describeReplication, recentWarnings, repairReplication, startValidation, validateReplication, waitForValidation, type TableValidationJson } from './replication-api';
import { insert, keyIs, remove, transaction, update } from './suite/changes';
import { asWarehouseHolds } from './suite/declared-losses';
import { digestOf, type Row, type TableSpec } from './suite/table-spec';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Eight tables, as wide as users run them (issue 35): four keyed by an integer, four by text. */
const TABLES: TableSpec[] = Array.from({ length: 8 }, (_, index): TableSpec => {
  const textKeyed = index % 2 === 1;
  return {
    schema: 'public',
    name: `wide_${index + 1}`,
    columns: [
      { name: 'id', type: textKeyed ? 'varchar(40)' : 'int', nullable: false },
      { name: 'name', type: 'text' },
      { name: 'amount', type: 'decimal(12,2)' },
    ],
    primaryKey: ['id'],
  };
});
const ROWS = 1_500;
const keyOf = (spec: TableSpec, id: number): string | number => (spec.columns[0]?.type === 'int' ? id : `k-${String(id).padStart(5, '0')}`);
const rowOf = (spec: TableSpec, id: number): Row => ({ id: keyOf(spec, id), name: `row ${id}`, amount: `${id}.25` });
const literal = (spec: TableSpec, id: number): string => (typeof keyOf(spec, id) === 'number' ? String(id) : `'${String(keyOf(spec, id))}'`);

/**
 * A replication of eight tables at ParallelTablesLimit 8 with the services' default settings (WORKER_CONCURRENCY 4,
 * the default pools): seeded at once, changed at once, then every warehouse table corrupted, validated, repaired and
 * validated again. Before issue 35, four comparisons at once each held a source connection and waited for another on
 * a pool of four: every table that differed came back Failed, "Source: the operation failed (internal error)".
 */
/** Pairs whose source fixture and warehouse dialect the other runnable pairs of this suite already cover. */
const WIDE_COVERED_BY_OTHERS: ReadonlySet<string> = new Set([
  'PostgreSQL → Redshift dialect executed on PostgreSQL (not a real Redshift)',
  'SQL Server modelled on PostgreSQL (not a real SQL Server) → Redshift dialect executed on PostgreSQL (not a real Redshift)',
]);

describeEachPair('wide replication', (pair: EnginePair) => {
  const stack = new TestStack({
    ...(pair.sourceServer && { sourceServer: pair.sourceServer }),
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', ...pair.stackEnv },
  });
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let replicationId = '';

  const diagnostics = async () => {
    const state = await describeReplication(stack, replicationId).catch(() => null);
    return `${JSON.stringify(state && { status: state.status, tables: state.tables, alerts: state.alerts })}\n${recentWarnings(stack).join('\n')}`;
  };

  /** Waits until every table of the warehouse holds exactly the source's rows. */
  const converged = async (deadlineMs: number) => {
    const deadline = Date.now() + deadlineMs;
    let last = '';
    for (;;) {
      let equal = true;
      for (const spec of TABLES) {
        const expected = digestOf(asWarehouseHolds(spec, await source.readRows(spec), pair.warehouseLosses));
        const held = await warehouse.digest('dw', spec).catch(() => null);
        if (JSON.stringify(held) !== JSON.stringify(expected)) {
          last = `${spec.name}: source ${JSON.stringify(expected)} warehouse ${JSON.stringify(held)}`;
          equal = false;
          break;
        }
      }
      if (equal) return;
      if (Date.now() > deadline) throw new Error(`the warehouse did not equal the source within ${deadlineMs} ms\nlast: ${last}\n${await diagnostics()}`);
      await sleep(500);
    }
  };

  beforeAll(async () => {
    await stack.start();
    source = await pair.openSource(stack);
    warehouse = await pair.openWarehouse(stack);
    await source.createTables(TABLES.map((spec) => ({ spec, rows: Array.from({ length: ROWS }, (_, index) => rowOf(spec, index + 1)) })));
  }, 120000);

  afterAll(async () => {
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60000);

  it('seeds eight tables at once and follows changes to all of them at once', async () => {
    const body = {
      parallelTablesLimit: 8,
      rebuildIndexes: false,
      source: { connectionString: pair.sourceConnectionString(stack), encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
      staging: { connectionString: pair.stagingConnectionString(stack), encryptDataInTransit: false, replicateCompatibilityLevel: false },
      warehouse: {
        accessType: 'AccessKey',
        accessKey: stack.s3.accessKeyId,
        secretKey: stack.s3.secretAccessKey,
        bucketName: 'wide-suite',
        bucketFolderName: '/wide',
        regionEndpoint: 'us-east-1',
        retentionDays: 2,
        ...pair.warehouse(stack),
        databaseSchema: 'dw',
        scdType: 'Type1',
      },
      addUpdateTimestamp: false,
      tablesToInclude: 'All',
    };
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(response.status).toBe(200);
    replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
    try {
      await waitUntil(async () => (await describeReplication(stack, replicationId)).tables.filter((table) => table.phase === 'Tracking').length === TABLES.length, 180000, 'every table Tracking');
    } catch (error) {
      throw new Error(`${String(error)}\n${await diagnostics()}`, { cause: error });
    }
    await converged(90000);
    // One transaction changes every table: an update, an insert and a delete each.
    await source.apply(
      transaction(
        ...TABLES.flatMap((spec) => [
          update(spec, { name: 'changed' }, keyIs('id', keyOf(spec, 3))),
          insert(spec, [rowOf(spec, ROWS + 1)]),
          remove(spec, keyIs('id', keyOf(spec, 4))),
        ]),
      ),
    );
    await converged(90000);
  }, 360000);

  it('names exactly the corrupted keys of eight tables validated at once, repairs them, and validates them equal', async () => {
    expect(replicationId).not.toBe('');
    for (const spec of TABLES) {
      for (const statement of [
        `UPDATE dw.${spec.name} SET name = 'corrupted' WHERE id = ${literal(spec, 10)}`,
        `DELETE FROM dw.${spec.name} WHERE id = ${literal(spec, 11)}`,
        `INSERT INTO dw.${spec.name} (id, name, amount) VALUES (${literal(spec, 90001)}, 'not in the source', 1.00)`,
        `UPDATE dw.${spec.name} SET amount = amount + 0.01 WHERE id = ${literal(spec, 12)}`,
      ]) {
        await warehouse.query(statement);
      }
    }
    const names = TABLES.map((spec) => pair.tableName(spec.schema, spec.name));
    const keysOf = (tables: TableValidationJson[]) =>
      Object.fromEntries(
        names.map((name) => {
          const table = tables.find((entry) => entry.name === name);
          const keys = (table?.differingKeys ?? []).map((found) => `${found.key.map((column) => column.value ?? 'NULL').join(',')}:${found.difference}`).sort();
          return [name, { state: table?.state, reason: table?.reason ?? null, keys }];
        }),
      );
    const validationId = await startValidation(stack, replicationId);
    const expected = (spec: TableSpec) =>
      [`${keyOf(spec, 10)}:different`, `${keyOf(spec, 11)}:missing`, `${keyOf(spec, 12)}:different`, `${keyOf(spec, 90001)}:extra`].sort();
    expect(keysOf(await waitForValidation(stack, replicationId, validationId, 240000))).toEqual(
      Object.fromEntries(TABLES.map((spec, index) => [names[index], { state: 'Mismatched', reason: null, keys: expected(spec) }])),
    );

    const repaired = await repairReplication(stack, replicationId, validationId, 300000);
    for (const name of names) {
      const table = repaired.find((entry) => entry.name === name);
      if (pair.repairsByReseed) expect({ name, state: table?.state, reseeded: /^reseeded:/.test(table?.reason ?? '') }).toEqual({ name, state: 'Repaired', reseeded: true });
      else expect({ name, state: table?.state, keys: table?.differingKeys ?? [] }).toEqual({ name, state: 'Repaired', keys: [] });
    }
    await converged(pair.repairsByReseed ? 240000 : 90000);
    const again = await validateReplication(stack, replicationId, 240000);
    expect(keysOf(again)).toEqual(Object.fromEntries(names.map((name) => [name, { state: 'Validated', reason: null, keys: [] }])));
  }, 900000);
},
  // The trigger fallback runs the pipeline suite; here the log's capture and the SQL Server model carry the load. Of the
  // four pairs of doubles and this machine's PostgreSQL, the two the pipeline suite leaves out run here (the other two
  // ran here too until npm test outgrew its ten minutes): every runnable pair runs in one of the two suites.
  selectedPairs(ENGINE_PAIRS).map((pair) => {
    if (pair.name.startsWith(TRIGGER_PAIR_PREFIX)) return leftOut(pair, 'the trigger fallback runs in the pipeline suite only');
    if (WIDE_COVERED_BY_OTHERS.has(pair.name)) return leftOut(pair, 'it runs the pipeline suite (npm test\'s time budget)');
    if (pair.name.startsWith(`${MARIADB_PAIR_PREFIX} `)) return leftOut(pair, 'validation needs SourceChecksums, which the MySQL source has not yet; it runs the MySQL source suite');
    return pair;
  }),
);
