import { table } from '../testing/pipeline-fixtures';
import type { WorkOrder } from './work-planner';
import { workUnits } from './work-units';

const changes = (tableName: string, replicationId = 'r1'): WorkOrder => ({ replicationId, tableName, kind: 'changes', track: true, fromVersion: '1', batchLimit: 500, configVersion: 1 });
const names = (units: WorkOrder[][]) => units.map((unit) => unit.map((order) => order.tableName));

describe('workUnits', () => {
  const tables = new Map([
    ['[public].[a]', table('[public].[a]', { lastCycleRows: 3 })],
    ['[public].[b]', table('[public].[b]', { lastCycleRows: 0 })],
    ['[public].[c]', table('[public].[c]', { lastCycleRows: 2 })],
    ['[public].[big]', table('[public].[big]', { lastCycleRows: 5000 })],
    ['[public].[failing]', table('[public].[failing]', { lastCycleRows: 1, failureCount: 2 })],
  ]);
  const tableOf = (order: WorkOrder) => tables.get(order.tableName);

  it('carries the small change cycles of a replication together, and everything else alone first', () => {
    const seed: WorkOrder = { ...changes('[public].[new]'), kind: 'seed' };
    const orders = [changes('[public].[a]'), seed, changes('[public].[big]'), changes('[public].[b]'), changes('[public].[failing]'), changes('[public].[c]')];
    expect(names(workUnits(orders, tableOf, { maxTables: 100, maxRows: 1000 }))).toEqual([
      ['[public].[new]'],
      ['[public].[big]'],
      ['[public].[failing]'],
      ['[public].[a]', '[public].[b]', '[public].[c]'],
    ]);
  });

  it('cuts groups at maxTables and never mixes replications', () => {
    const orders = [changes('[public].[a]'), changes('[public].[b]'), changes('[public].[c]'), changes('[public].[a]', 'r2')];
    expect(workUnits(orders, tableOf, { maxTables: 2, maxRows: 1000 }).map((unit) => unit.map((order) => `${order.replicationId}:${order.tableName}`))).toEqual([
      ['r1:[public].[a]', 'r1:[public].[b]'],
      ['r1:[public].[c]'],
      ['r2:[public].[a]'],
    ]);
  });

  it('leaves every table alone with maxTables 1, and a seed close or a table it does not know alone always', () => {
    const orders = [changes('[public].[a]'), changes('[public].[b]')];
    expect(names(workUnits(orders, tableOf, { maxTables: 1, maxRows: 1000 }))).toEqual([['[public].[a]'], ['[public].[b]']]);
    const close: WorkOrder = { ...changes('[public].[c]'), kind: 'seed', seedClose: { seedId: 's', chunkCount: 2, fromVersion: '1' } };
    expect(names(workUnits([close, changes('[public].[unknown]'), ...orders], tableOf, { maxTables: 10, maxRows: 1000 }))).toEqual([
      ['[public].[c]'],
      ['[public].[unknown]'],
      ['[public].[a]', '[public].[b]'],
    ]);
  });
});
