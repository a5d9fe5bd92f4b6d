import { Portable, type TableDefinition } from '@svc/contracts';
import { SentDefinitions } from './sent-definitions';

const REPLICATION = '0f1e2d3c-4b5a-4968-8776-655443322110';
const items: TableDefinition = {
  table: { schema: 'public', name: 'items' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
    { name: 'name', sourceType: 'text', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 10,
};
const [id, name] = items.columns as [TableDefinition['columns'][number], TableDefinition['columns'][number]];

describe('SentDefinitions', () => {
  it('knows nothing at first, so the first empty read of a table goes downstream', () => {
    expect(new SentDefinitions().isDelivered(REPLICATION, items, '100')).toBe(false);
  });

  it('counts a definition delivered once the watermark reached the version of the batch that carried it', () => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items, '200');
    expect(sent.isDelivered(REPLICATION, items, '200')).toBe(true);
    expect(sent.isDelivered(REPLICATION, { ...items, estimatedRows: 99 }, '250')).toBe(true);
  });

  it('does not while the watermark is below that version: the batch failed downstream, so its retry carries it again', () => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items, '200');
    expect(sent.isDelivered(REPLICATION, items, '150')).toBe(false);
  });

  it.each<[string, TableDefinition]>([
    ['a column added', { ...items, columns: [id, name, { name: 'grade', sourceType: 'integer', portableType: Portable.integer(), nullable: true }] }],
    ['a column dropped', { ...items, columns: [id] }],
    ['a type changed', { ...items, columns: [id, { ...name, sourceType: 'varchar(10)' }] }],
    ['nullability changed', { ...items, columns: [id, { ...name, nullable: false }] }],
    ['a default given', { ...items, columns: [id, { ...name, hasDefault: true }] }],
    ['another key', { ...items, primaryKey: ['id', 'name'] }],
  ])('is not delivered after %s', (_change, changed) => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items, '200');
    expect(sent.isDelivered(REPLICATION, changed, '300')).toBe(false);
  });

  it('keeps replications and tables apart', () => {
    const sent = new SentDefinitions();
    sent.remember(REPLICATION, items, '200');
    expect(sent.isDelivered('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', items, '300')).toBe(false);
    expect(sent.isDelivered(REPLICATION, { ...items, table: { schema: 'sales', name: 'items' } }, '300')).toBe(false);
  });
});
