import { tapChunks } from './tap-chunks';

async function* chunks(...texts: string[]): AsyncGenerator<Buffer> {
  for (const text of texts) yield Buffer.from(text);
}

describe('tapChunks', () => {
  it('hands every chunk to the sink before passing it on, reading the source once', async () => {
    const events: string[] = [];
    const sink = {
      write: async (chunk: Buffer): Promise<void> => {
        events.push(`sink ${chunk.toString()}`);
      },
    };
    for await (const chunk of tapChunks(chunks('a', 'b', 'c'), sink)) events.push(`read ${chunk.toString()}`);
    expect(events).toEqual(['sink a', 'read a', 'sink b', 'read b', 'sink c', 'read c']);
  });

  it('waits for the sink: a slow sink holds the reading back', async () => {
    let release: () => void = () => undefined;
    const sink = { write: () => new Promise<void>((resolve) => (release = resolve)) };
    const iterator = tapChunks(chunks('a', 'b'), sink)[Symbol.asyncIterator]();
    let settled = false;
    const first = iterator.next().then((result) => {
      settled = true;
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    const result = (await first) as IteratorYieldResult<Buffer>;
    expect(result.value.toString()).toBe('a');
  });

  it('fails the reading when the sink fails', async () => {
    const sink = { write: async (): Promise<void> => Promise.reject(new Error('upload failed')) };
    const read = async (): Promise<void> => {
      for await (const chunk of tapChunks(chunks('a'), sink)) expect(chunk).toBeDefined();
    };
    await expect(read()).rejects.toThrow('upload failed');
  });

  it('runs afterLast once the sink has every chunk, before the reader sees the end; not when the reader stops early', async () => {
    const events: string[] = [];
    const sink = { write: async (chunk: Buffer): Promise<void> => void events.push(`sink ${chunk.toString()}`) };
    const afterLast = async (): Promise<void> => void events.push('after last');
    for await (const chunk of tapChunks(chunks('a', 'b'), sink, afterLast)) events.push(`read ${chunk.toString()}`);
    events.push('end seen');
    expect(events).toEqual(['sink a', 'read a', 'sink b', 'read b', 'after last', 'end seen']);
    events.length = 0;
    for await (const chunk of tapChunks(chunks('a', 'b'), sink, afterLast)) {
      events.push(`read ${chunk.toString()}`);
      break;
    }
    expect(events).toEqual(['sink a', 'read a']);
  });
});
