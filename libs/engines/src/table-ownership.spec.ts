import { isEngineError } from './errors';
import { ForeignTableError, claimTable, type OwnershipLedger, type TableClaim } from './table-ownership';

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
