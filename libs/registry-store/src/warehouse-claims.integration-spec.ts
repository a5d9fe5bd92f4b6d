import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@svc/crypto';
import { createTempDatabase, sampleReplicationConfig, type TempDatabase } from '@svc/testing';
import { migrate } from './migrate';
import { ReplicationRepository } from './replication-repository';
import { WarehouseClaimRepository, type WarehouseTableClaim } from './warehouse-claim-repository';

const WAREHOUSE = 'loopback:5432/dw/analytics';
const orders: WarehouseTableClaim = { tableName: '[public].[orders]', warehouseTable: 'analytics.orders' };
const customers: WarehouseTableClaim = { tableName: '[public].[customers]', warehouseTable: 'analytics.customers' };

describe('WarehouseClaimRepository against PostgreSQL', () => {
  let database: TempDatabase;
  let pool: Pool;
  let replications: ReplicationRepository;
  let claims: WarehouseClaimRepository;

  beforeAll(async () => {
    database = await createTempDatabase('svc_warehouse_claims_it');
    pool = new Pool({ connectionString: database.url, max: 8 });
    await migrate(pool);
    replications = new ReplicationRepository(pool, new SecretBox(randomBytes(32)));
    claims = new WarehouseClaimRepository(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  async function newReplication(name: string, owner = 'SVCOWNERKEY'): Promise<string> {
    const config = { ...sampleReplicationConfig(), replicationName: name };
    return (await replications.insert({ status: 'Running', config }, { requestId: 'r', accessKeyId: owner })).replicationId;
  }

  it('gives a warehouse table to the first replication that claims it and names it to the next', async () => {
    const first = await newReplication('first', 'SVCFIRSTKEY');
    const second = await newReplication('second');
    expect(await claims.claim(first, WAREHOUSE, [orders])).toEqual([]);
    const refused = await claims.claim(second, WAREHOUSE, [orders, customers]);
    expect(refused).toEqual([{ ...orders, replicationId: first, replicationName: 'first', ownerAccessKeyId: 'SVCFIRSTKEY' }]);
    expect(await claims.conflicts(WAREHOUSE, [orders, customers], first)).toEqual([{ ...customers, replicationId: second, replicationName: 'second', ownerAccessKeyId: 'SVCOWNERKEY' }]);
    expect(await claims.conflicts('loopback:5432/dw/other', [orders, customers])).toEqual([]);
  });

  it('releases what a replication no longer selects, or writes into another warehouse, and all it held when deleted', async () => {
    const moving = await newReplication('moving');
    const waiting = await newReplication('waiting');
    await claims.claim(moving, WAREHOUSE, [{ tableName: '[s].[a]', warehouseTable: 'analytics.s_a' }, { tableName: '[s].[b]', warehouseTable: 'analytics.s_b' }]);
    await claims.claim(moving, WAREHOUSE, [{ tableName: '[s].[b]', warehouseTable: 'analytics.s_b' }]);
    expect(await claims.claim(waiting, WAREHOUSE, [{ tableName: '[s].[a]', warehouseTable: 'analytics.s_a' }])).toEqual([]);
    await claims.claim(moving, 'elsewhere:5439/dw/analytics', [{ tableName: '[s].[b]', warehouseTable: 'analytics.s_b' }]);
    expect(await claims.claim(waiting, WAREHOUSE, [{ tableName: '[s].[b]', warehouseTable: 'analytics.s_b' }])).toEqual([]);

    const deleted = await newReplication('deleted');
    await claims.claim(deleted, WAREHOUSE, [{ tableName: '[s].[c]', warehouseTable: 'analytics.s_c' }]);
    await replications.delete(deleted);
    expect(await claims.claim(waiting, WAREHOUSE, [{ tableName: '[s].[c]', warehouseTable: 'analytics.s_c' }])).toEqual([]);
  });

  it('lets exactly one of many replications claiming one table at once have it', async () => {
    const contenders = await Promise.all(Array.from({ length: 6 }, (_, index) => newReplication(`contender-${index}`)));
    const claim = { tableName: '[race].[t]', warehouseTable: 'analytics.race_t' };
    const outcomes = await Promise.all(contenders.map((id) => claims.claim(id, WAREHOUSE, [claim])));
    const winners = contenders.filter((_, index) => outcomes[index]?.length === 0);
    expect(winners).toHaveLength(1);
    for (const refused of outcomes.filter((outcome) => outcome.length > 0)) expect(refused).toEqual([expect.objectContaining({ replicationId: winners[0] })]);
  });
});
