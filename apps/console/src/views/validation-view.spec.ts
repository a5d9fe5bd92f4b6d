import { encodeResponse } from '@svc/api-codec';
import type { TableValidation } from '@svc/contracts';
import type { DescribedValidation } from '../api/wire-types.js';
import { findAll, textOf } from '../render/vnode.js';
import { ALL_ALLOWED, type Permissions } from '../api/permissions.js';
import { repairView, validationView, type RepairViewOptions } from './validation-view.js';

const NOW = new Date('2026-11-27T10:01:00.000Z');
const base = { reason: null, rowsCompared: 0, rowsEstimated: null, mismatchedKeys: 0, missingKeys: 0, extraKeys: 0, differentKeys: 0, unsettledKeys: 0, differingKeys: [], sourceVersion: null, startedAt: null, endedAt: null };

function described(tables: TableValidation[]): DescribedValidation {
  const body = encodeResponse('DescribeReplicationValidation', 'json', { replicationId: 'r', validationId: '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c', requestedAt: '2026-11-27T10:00:00.000Z', scheduled: false, tables }).body;
  return JSON.parse(body) as DescribedValidation;
}

describe('validation view', () => {
  const view = validationView(
    described([
      {
        ...base,
        name: '[public].[orders]',
        state: 'Mismatched',
        rowsCompared: 1000,
        rowsEstimated: 990,
        mismatchedKeys: 23,
        missingKeys: 1,
        extraKeys: 2,
        differentKeys: 20,
        unsettledKeys: 3,
        differingKeys: [
          { key: { id: '42' }, difference: 'different' },
          { key: { id: '7' }, difference: 'missing' },
        ],
        startedAt: '2026-11-27T10:00:01.000Z',
        endedAt: '2026-11-27T10:00:09.000Z',
      },
      { ...base, name: '[public].[big]', state: 'Running', rowsCompared: 100, rowsEstimated: 400, startedAt: '2026-11-27T10:00:50.000Z' },
      { ...base, name: '[public].[seeding]', state: 'Skipped', reason: 'the table is still seeding' },
      { ...base, name: '[public].[moved]', state: 'Repaired', reason: 'reseeded: 12000 keys differ; a validation of it starts by itself once the reseed has completed', endedAt: '2026-11-27T10:00:30.000Z' },
    ]),
    NOW,
  );
  const row = (name: string) => findAll(view, (element) => element.tag === 'tr' && element.attrs['data-table'] === name)[0];
  const cells = (name: string) => {
    const found = row(name);
    return found ? findAll(found, (element) => element.tag === 'td').map(textOf) : [];
  };

  it('shows per table its state, the differences by kind, and the first differing keys with what is left unshown', () => {
    expect(cells('[public].[orders]')).toEqual([
      '[public].[orders]',
      'Mismatched',
      '1,000 rows compared',
      '1',
      '2',
      '20',
      '3',
      'id=42 differentid=7 missingand 21 more',
      '2026-11-27 10:00:01 UTC',
      '2026-11-27 10:00:09 UTC',
    ]);
    expect(row('[public].[orders]')?.attrs['data-state']).toBe('Mismatched');
  });

  it("shows a running table's progress as a bar, like a seed's", () => {
    const progress = findAll(row('[public].[big]') ?? view, (element) => element.tag === 'progress')[0];
    expect(progress?.attrs).toMatchObject({ max: '400', value: '100' });
    expect(cells('[public].[big]')[2]).toMatch(/^100 \/ 400 rows \(25%\)10\.0 rows\/sETA 30 s$/);
  });

  it('gives the reason of a Skipped table and of a repair that reseeded', () => {
    expect(cells('[public].[seeding]')[1]).toBe('Skippedthe table is still seeding');
    expect(cells('[public].[moved]')[1]).toBe('Repairedreseeded: 12000 keys differ; a validation of it starts by itself once the reseed has completed');
    expect(textOf(view)).toContain('9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c');
  });

  it("says so on a table's page when the latest validation did not compare that table", () => {
    const other = validationView(described([]), NOW);
    expect(textOf(other)).toMatch(/9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c, requested 2026-11-27 10:00:00 UTC\.It did not compare this table\.$/);
    expect(findAll(other, (element) => element.tag === 'table')).toEqual([]);
  });
});

describe('repair view', () => {
  const calls: string[] = [];
  const options = (overrides: Partial<RepairViewOptions>): RepairViewOptions => ({
    permissions: ALL_ALLOWED,
    tables: ['[public].[orders]', '[public].[lines]'],
    confirming: false,
    sending: false,
    onAsk: () => calls.push('ask'),
    onConfirm: () => calls.push('confirm'),
    onCancel: () => calls.push('cancel'),
    ...overrides,
  });
  const buttons = (view: ReturnType<typeof repairView>) => findAll(view, (element) => element.tag === 'button');
  const click = (view: ReturnType<typeof repairView>, id: string) => buttons(view).find((button) => button.attrs['id'] === id)?.on['click']?.(new Event('click'));

  beforeEach(() => (calls.length = 0));

  it('offers Repair only while the latest validation has Mismatched tables', () => {
    const none = repairView(options({ tables: [] }));
    expect(buttons(none).map((button) => [textOf(button), button.attrs['disabled']])).toEqual([['Repair', '']]);
    expect(textOf(none)).toContain('the latest validation found no Mismatched table');
    const some = repairView(options({}));
    expect(buttons(some).map((button) => [textOf(button), button.attrs['disabled']])).toEqual([['Repair 2 mismatched table(s)…', undefined]]);
    click(some, 'repair-validation');
    expect(calls).toEqual(['ask']);
  });

  it('asks first, naming the tables it rewrites, and sends only on confirmation', () => {
    const asking = repairView(options({ confirming: true }));
    expect(findAll(asking, (element) => element.tag === 'li').map(textOf)).toEqual(['[public].[orders]', '[public].[lines]']);
    expect(textOf(asking)).toMatch(/reseeded instead/);
    click(asking, 'cancel-repair');
    click(asking, 'confirm-repair');
    expect(calls).toEqual(['cancel', 'confirm']);
    expect(buttons(repairView(options({ confirming: true, sending: true }))).map((button) => button.attrs['disabled'])).toEqual(['', '']);
  });

  it("shows a key that may not repair the button disabled with the gateway's reason", () => {
    const permissions: Permissions = { ...ALL_ALLOWED, RepairReplication: { allowed: false, reason: 'access key K is not allowed to call RepairReplication' } };
    const denied = repairView(options({ permissions }));
    expect(buttons(denied)[0]?.attrs['disabled']).toBe('');
    expect(buttons(denied)[0]?.on).toEqual({});
    expect(findAll(denied, (element) => element.attrs['class'] === 'denied').map(textOf)).toEqual(['access key K is not allowed to call RepairReplication']);
  });
});
