import { Portable, type PortableType } from '@svc/contracts';
import { ROW_TEXT_BUDGET_BYTES, canonicalRowText, digestedFields, fieldTextBytesAtMost, rowDigestText, type ChecksumColumn, type ChecksumDialect } from './checksum-sql';

const column = (name: string, type: PortableType): ChecksumColumn => ({ sql: name, type, declaredType: 'x' });

/** A dialect that spells each piece as a readable term, so the shape of the row text shows. */
const WORDS: ChecksumDialect = {
  canonicalText: ({ sql }) => `text(${sql})`,
  mayHoldSeparators: () => false,
  keyText: ({ sql }) => sql,
  keyFromText: (parameter) => parameter,
  concat: (parts) => parts.join(' ~ '),
  character: (code) => `chr${code}`,
  md5: (text) => `md5[${text}]`,
  hexPrefixValue: (hex) => hex,
  parameter: (index) => `$${index}`,
  digestSum: (digest) => `SUM(${digest})`,
  distinctAtMost: (limit) => ({ select: 'SELECT DISTINCT', after: `LIMIT ${limit}` }),
};

describe('the row text budget (Redshift keeps a VARCHAR of at most 65535 bytes)', () => {
  it('leaves a row that always fits as its canonical text', () => {
    const columns = [column('id', Portable.bigint()), column('name', Portable.varchar(200)), column('at', Portable.timestamp(6, true))];
    expect(digestedFields(columns)).toEqual(new Set());
    expect(rowDigestText(WORDS, columns)).toBe(canonicalRowText(WORDS, columns));
  });

  it('carries the longest fields as their MD5, largest first, until the worst case fits, and no more', () => {
    const columns = [
      column('id', Portable.bigint()),
      column('body', Portable.text()),
      column('title', Portable.varchar(4000)),
      column('note', Portable.varchar(100)),
      column('blob', Portable.binary(null, false)),
    ];
    // Unbounded text and binary go; then varchar(4000) (32,000 bytes at worst, escaped) fits beside varchar(100).
    expect(digestedFields(columns)).toEqual(new Set([1, 4]));
    const worstCase = columns.reduce((sum, entry, index) => sum + (digestedFields(columns).has(index) ? 32 : fieldTextBytesAtMost(entry.type)) + 1, 0);
    expect(worstCase).toBeLessThanOrEqual(ROW_TEXT_BUDGET_BYTES);
    expect(rowDigestText(WORDS, columns)).toContain('md5[COALESCE(text(body)');
    expect(rowDigestText(WORDS, columns)).not.toContain('md5[COALESCE(text(title)');
  });

  it('decides from the column types alone, so source and warehouse cut the same fields', () => {
    const wide = Array.from({ length: 40 }, (_, index) => column(`c${index}`, Portable.varchar(1000)));
    const digested = digestedFields(wide);
    // 40 × 8,000 bytes at worst: the first 33 by position (ties) are cut, leaving 7 × 8,000 + 33 × 32 within the budget.
    expect([...digested]).toEqual(Array.from({ length: 33 }, (_, index) => index));
    expect(digestedFields(wide.map((entry) => ({ ...entry, sql: `w.${entry.sql}`, declaredType: 'VARCHAR(4000)' })))).toEqual(digested);
  });
});
