import { isEngineError } from './errors';
import { ForeignTableError, claimTable, claimWarehouseTables, type OwnershipLedger, type TableClaim, type WarehouseOwnershipLedger } from './table-ownership';

/** A ledger in memory that says which of its questions were asked. */
function ledger(facts: { recorded: boolean; namedByEarlierVersion: boolean }): OwnershipLedger & { asked: string[]; recorded: boolean } {
  const state = {
    asked: [] as string[],
    recorded: facts.recorded,
    isRecorded: () => {
      state.asked.push('isRecorded');
      return Promise.resolve(state.recorded);
    },
    isNamedByEarlierVersion: () => {
      state.asked.push('isNamedByEarlierVersion');
      return Promise.resolve(facts.namedByEarlierVersion);
    },
    record: () => {
      state.asked.push('record');
      state.recorded = true;
      return Promise.resolve();
    },
  };
  return state;
}

const existing: TableClaim = { role: 'Staging', displayName: 'dbo.customers', exists: true };

describe('claimTable', () => {
  it('records a table about to be created, asking nothing else', async () => {
    const records = ledger({ recorded: false, namedByEarlierVersion: false });
    await claimTable(records, { ...existing, exists: false });
    expect(records.asked).toEqual(['record']);
  });

  it('passes an existing table the record names, without recording it again', async () => {
    const records = ledger({ recorded: true, namedByEarlierVersion: false });
    await claimTable(records, existing);
    expect(records.asked).toEqual(['isRecorded']);
  });

  it('adopts an existing table an earlier version named, and records it', async () => {
    const records = ledger({ recorded: false, namedByEarlierVersion: true });
    await claimTable(records, existing);
    expect(records.asked).toEqual(['isRecorded', 'isNamedByEarlierVersion', 'record']);
    expect(records.recorded).toBe(true);
  });

  it.each([
    ['Staging', 'Staging table dbo.customers exists and was not created by this service: it is not written. Drop or rename it, or choose another staging database or schema'],
    [
      'Warehouse',
      'Warehouse table dbo.customers exists and was not created by this service: it is not written. Drop or rename it, or choose another warehouse database or Warehouse.DatabaseSchema',
    ],
  ] as const)('refuses any other existing table (%s), recording nothing, with a reason that says what to do', async (role, reason) => {
    const records = ledger({ recorded: false, namedByEarlierVersion: false });
    const claiming = claimTable(records, { ...existing, role });
    await expect(claiming).rejects.toThrow(reason);
    const error: unknown = await claiming.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForeignTableError);
    expect(isEngineError(error, 'foreign-table')).toBe(true);
    expect(records.recorded).toBe(false);
  });
});

/** A warehouse schema's record in memory: which tables it names, and whether an earlier version's rows name the target. */
function warehouseLedger(recorded: string[], targetNamedByEarlierVersion = false): WarehouseOwnershipLedger & { recorded: Set<string> } {
  const state = {
    recorded: new Set(recorded),
    isRecorded: (table: string) => Promise.resolve(state.recorded.has(table)),
    isTargetNamedByEarlierVersion: () => Promise.resolve(targetNamedByEarlierVersion),
    record: (table: string) => {
      state.recorded.add(table);
      return Promise.resolve();
    },
  };
  return state;
}

const pair = (targetExists: boolean, shadowExists: boolean) => ({ schema: 'dw', target: 'customers', targetExists, shadow: 'svc_seed_customers', shadowExists });

describe('claimWarehouseTables', () => {
  it('records a new target and shadow', async () => {
    const ledger = warehouseLedger([]);
    await claimWarehouseTables(ledger, pair(false, false));
    expect([...ledger.recorded].sort()).toEqual(['customers', 'svc_seed_customers']);
  });

  it("refuses a user's target, naming it, and records nothing", async () => {
    const ledger = warehouseLedger([]);
    await expect(claimWarehouseTables(ledger, pair(true, false))).rejects.toThrow('Warehouse table dw.customers exists and was not created by this service');
    expect(ledger.recorded.size).toBe(0);
  });

  it("refuses a user's table named like the shadow beside a missing target", async () => {
    await expect(claimWarehouseTables(warehouseLedger([]), pair(false, true))).rejects.toThrow('Warehouse table dw.svc_seed_customers exists and was not created by this service');
  });

  it('adopts a target found with its shadow (earlier versions created them together), and one their fences name', async () => {
    const together = warehouseLedger([]);
    await claimWarehouseTables(together, pair(true, true));
    expect([...together.recorded].sort()).toEqual(['customers', 'svc_seed_customers']);
    const named = warehouseLedger([], true);
    await claimWarehouseTables(named, pair(true, false));
    expect([...named.recorded].sort()).toEqual(['customers', 'svc_seed_customers']);
  });

  it('passes a recorded target whose shadow a user dropped, creating and recording the shadow anew', async () => {
    const ledger = warehouseLedger(['customers']);
    await claimWarehouseTables(ledger, pair(true, false));
    expect([...ledger.recorded].sort()).toEqual(['customers', 'svc_seed_customers']);
  });
});
