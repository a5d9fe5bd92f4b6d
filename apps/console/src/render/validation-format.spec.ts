import { encodeResponse, type ValidationDescriptionOnWire } from '@svc/api-codec';
import type { TableValidation, ValidationDescription } from '@svc/contracts';
import type { DescribedValidation, Wire } from '../api/wire-types.js';
import { formatKey, isLiveState, mismatchedTableNames, progressText, validationIsLive, validationProgress } from './validation-format.js';

const NOW = new Date('2026-11-27T10:00:10.000Z');

function table(overrides: Partial<TableValidation>): TableValidation {
  return {
    name: '[public].[orders]',
    state: 'Running',
    reason: null,
    rowsCompared: 0,
    rowsEstimated: null,
    mismatchedKeys: 0,
    missingKeys: 0,
    extraKeys: 0,
    differentKeys: 0,
    unsettledKeys: 0,
    differingKeys: [],
    sourceVersion: null,
    startedAt: null,
    endedAt: null,
    ...overrides,
  };
}

/** A description exactly as the gateway's JSON carries it (nulls left out, keys as column lists). */
function onWire(...tables: TableValidation[]): DescribedValidation {
  const description: ValidationDescription = { replicationId: 'r', validationId: 'v', requestedAt: '2026-11-27T10:00:00.000Z', scheduled: false, tables };
  return JSON.parse(encodeResponse('DescribeReplicationValidation', 'json', description).body) as DescribedValidation;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe('validation formatting', () => {
  it("reads DescribeReplicationValidation as the gateway's codec writes it (a type that stops compiling when they part)", () => {
    const sameShape: Same<Wire<ValidationDescriptionOnWire>, DescribedValidation> = true;
    expect(sameShape).toBe(true);
  });

  it('writes a key as its columns, quoting what a bare value could not tell apart (blanks, empty, NULL)', () => {
    const [found] = onWire(
      table({
        state: 'Mismatched',
        differingKeys: [{ key: { id: '980010', region: 'eu west ', note: '', missing: null, word: 'NULL', at: '2026-11-27 10:00:00.000001+00' }, difference: 'different' }],
      }),
    ).tables[0]?.differingKeys ?? [];
    expect(formatKey(found?.key ?? [])).toBe('id=980010, region="eu west ", note="", missing=NULL, word="NULL", at="2026-11-27 10:00:00.000001+00"');
    expect(formatKey([{ name: 'id', value: '-7.5' }])).toBe('id=-7.5');
    expect(formatKey([{ name: 'name', value: 'say "hi"\n' }])).toBe('name="say \\"hi\\"\\n"');
  });

  it("shows a running comparison's rows compared of the estimate, with rate and ETA like a seed", () => {
    const [running] = onWire(table({ state: 'Running', rowsCompared: 250, rowsEstimated: 1000, startedAt: '2026-11-27T10:00:05.000Z' })).tables;
    expect(running && validationProgress(running, NOW)).toEqual({ rowsCopied: 250, rowsEstimated: 1000, percent: 25, rate: 50, etaSeconds: 15 });
    const [repairing] = onWire(table({ state: 'Repairing', rowsCompared: 10, rowsEstimated: 10 })).tables;
    expect(repairing && validationProgress(repairing, NOW)).toMatchObject({ percent: 100, rate: null, etaSeconds: null });
  });

  it('says in words where a table without a bar stands', () => {
    const tables = onWire(
      table({ state: 'Pending' }),
      table({ state: 'Running' }),
      table({ state: 'Validated', rowsCompared: 400000, rowsEstimated: 399000 }),
      table({ state: 'Skipped', reason: 'the table is still seeding' }),
    ).tables;
    expect(tables.map((entry) => validationProgress(entry, NOW))).toEqual([null, null, null, null]);
    expect(tables.map(progressText)).toEqual(['waiting to start', 'starting…', '400,000 rows compared', '—']);
  });

  it('is live while a table is Pending, Running or Repairing, and repairs only the Mismatched tables', () => {
    expect(['Pending', 'Running', 'Repairing', 'Validated', 'Mismatched', 'Repaired', 'Failed', 'Skipped'].filter((state) => isLiveState(state as TableValidation['state']))).toEqual(['Pending', 'Running', 'Repairing']);
    const finished = onWire(table({ name: 'a', state: 'Validated' }), table({ name: 'b', state: 'Mismatched' }), table({ name: 'c', state: 'Repaired' }), table({ name: 'd', state: 'Mismatched' }));
    expect(validationIsLive(finished)).toBe(false);
    expect(mismatchedTableNames(finished)).toEqual(['b', 'd']);
    expect(validationIsLive(onWire(table({ name: 'a', state: 'Validated' }), table({ name: 'b', state: 'Repairing' })))).toBe(true);
  });
});
