import { randomBytes } from 'node:crypto';
import { fixedSizeChunks } from './fixed-size-chunks';

async function* from(pieces: (Buffer | Uint8Array)[]): AsyncGenerator<Buffer | Uint8Array> {
  for (const piece of pieces) yield piece;
}

async function collect(pieces: (Buffer | Uint8Array)[], chunkBytes: number): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of fixedSizeChunks(from(pieces), chunkBytes)) chunks.push(chunk);
  return chunks;
}

describe('fixedSizeChunks', () => {
  it('cuts across piece boundaries into full chunks and a short last one', async () => {
    const chunks = await collect([Buffer.from('abc'), Buffer.from('defgh'), Buffer.from('ij')], 4);
    expect(chunks.map((chunk) => chunk.toString())).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('slices a piece larger than several chunks', async () => {
    const chunks = await collect([Buffer.from('0123456789')], 3);
    expect(chunks.map((chunk) => chunk.toString())).toEqual(['012', '345', '678', '9']);
  });

  it('yields nothing for no input or only empty pieces', async () => {
    expect(await collect([], 4)).toEqual([]);
    expect(await collect([Buffer.alloc(0), new Uint8Array(0)], 4)).toEqual([]);
  });

  it('accepts Uint8Array views without losing their offset', async () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const chunks = await collect([backing.subarray(2, 5)], 2);
    expect(chunks.map((chunk) => [...chunk])).toEqual([[1, 2], [3]]);
  });

  it('preserves every byte of random input in order', async () => {
    const input = randomBytes(100_000);
    const pieces: Buffer[] = [];
    for (let offset = 0; offset < input.length; offset += 7_919) pieces.push(input.subarray(offset, offset + 7_919));
    const chunks = await collect(pieces, 4_096);
    expect(chunks.slice(0, -1).every((chunk) => chunk.length === 4_096)).toBe(true);
    expect(Buffer.concat(chunks).equals(input)).toBe(true);
  });

  it('refuses a chunk size below one byte', async () => {
    await expect(collect([Buffer.from('a')], 0)).rejects.toThrow('chunk size must be an integer >= 1');
  });
});
