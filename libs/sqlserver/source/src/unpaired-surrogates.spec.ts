import { Portable, type TableDefinition } from '@svc/contracts';
import { readLayout, unpairedSurrogateInKeys, unpairedSurrogateInRow } from './unpaired-surrogates';

const logs: TableDefinition = {
  table: { schema: 'app', name: 'logs' },
  columns: [
    { name: 'tenant', sourceType: 'nvarchar(100)', portableType: Portable.varchar(100), nullable: false },
    { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
    { name: 'note', sourceType: 'nvarchar(max)', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['tenant', 'id'],
} as TableDefinition;

describe('unpaired surrogates in what the SQL Server source reads', () => {
  it.each([
    ['a high half at the end', 'a\uD800'],
    ['a high half before another high half', '\uD800\uD83D\uDE00'],
    ['a low half at the start', '\uDC00a'],
    ['a low half after a whole pair', '\uD83D\uDE00\uDE00'],
  ])('finds %s', (_, text) => {
    expect(unpairedSurrogateInRow(readLayout(logs, 'snapshot'), ['t', 1, text], 1)).not.toBeNull();
  });

  it('passes whole pairs, numbers and NULL', () => {
    expect(unpairedSurrogateInRow(readLayout(logs, 'snapshot'), ['\uD83D\uDE00𝄞', 1, null], 1)).toBeNull();
  });

  it('names every key column in the reason and gives their values only in the detail, cut to 100 characters', () => {
    const tenant = '😀'.repeat(120);
    const refusal = unpairedSurrogateInRow(readLayout(logs, 'snapshot'), [tenant, 7, 'x\uDFFF'], 3);
    expect(refusal?.message).toMatch(/^Source: \[app\]\.\[logs\], row of key \(tenant, id\), column note holds half of a UTF-16 surrogate pair/);
    expect(refusal?.message).not.toContain('😀');
    expect(refusal?.valueDetail).toBe(`[app].[logs]: the row of key (tenant=${'😀'.repeat(100)}…, id=7); column note holds U+DFFF unpaired`);
  });

  it('numbers the row of a table without a key', () => {
    const keyless = { ...logs, primaryKey: [] };
    const refusal = unpairedSurrogateInRow(readLayout(keyless, 'snapshot'), ['t', 1, '\uD800'], 12);
    expect(refusal?.message).toMatch(/^Source: \[app\]\.\[logs\], row 12 of the read \(no key\), column note holds half/);
    expect(refusal?.valueDetail).toBe('[app].[logs]: row 12; column note holds U+D800 unpaired');
  });

  it('reads validation key texts by position, key_0 the first key column', () => {
    const rows = [{ key_hash: 'ab', key_0: 't', key_1: '1' }, { key_hash: 'cd', key_0: 't\uDBFF', key_1: '2' }];
    expect(unpairedSurrogateInKeys(logs.table, logs.primaryKey, rows.slice(0, 1))).toBeNull();
    expect(unpairedSurrogateInKeys(logs.table, logs.primaryKey, rows)?.valueDetail).toBe('[app].[logs]: the key (tenant=t\\uDBFF, id=2); column tenant holds U+DBFF unpaired');
  });
});
