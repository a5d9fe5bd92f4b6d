import type { TableDefinition } from '@svc/contracts';
import { SentDefinitions } from './sent-definitions';

const REPLICATION = '0f1e2d3c-4b5a-4968-8776-655443322110';
const items: TableDefinition = {
  table: { schema: 'public', name: 'items' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: 'integer', nullable: false },
    { name: 'name', sourceType: 'text', portableType: 'text', nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 10,
};

describe('SentDefinitions', () => {
  it('knows nothing at first, so the first empty read of a table goes downstream', () => {
    expect(new SentDefinitions().isCurrent(REPLICATION, items)).toBe(false);
  });

  it('is current for the definition remembered, whatever the row estimate', () => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items);
    expect(sent.isCurrent(REPLICATION, { ...items, estimatedRows: 99 })).toBe(true);
  });

  it.each<[string, TableDefinition]>([
    ['a column added', { ...items, columns: [...items.columns, { name: 'grade', sourceType: 'integer', portableType: 'integer', nullable: true }] }],
    ['a column dropped', { ...items, columns: items.columns.slice(0, 1) }],
    ['a type changed', { ...items, columns: [items.columns[0], { ...items.columns[1], sourceType: 'varchar(10)' }] }],
    ['nullability changed', { ...items, columns: [items.columns[0], { ...items.columns[1], nullable: false }] }],
    ['a default given', { ...items, columns: [items.columns[0], { ...items.columns[1], hasDefault: true }] }],
    ['another key', { ...items, primaryKey: ['id', 'name'] }],
  ])('is not current after %s', (_change, changed) => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items);
    expect(sent.isCurrent(REPLICATION, changed)).toBe(false);
  });

  it('keeps replications and tables apart', () => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items);
    expect(sent.isCurrent('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', items)).toBe(false);
    expect(sent.isCurrent(REPLICATION, { ...items, table: { schema: 'sales', name: 'items' } })).toBe(false);
  });
});
