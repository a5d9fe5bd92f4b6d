/**
 * Yields `source`'s chunks, handing each to `sink` first: how the stager writes the batch files from the
 * same single reading that feeds staging (`staging.applyBatch(batch, tapChunks(rows, writer))`). The
 * reader's pace is the slower of the two, so nothing piles up in memory. `afterLast` runs once the sink has
 * every chunk, before the reader learns there are no more (the stager hands the files on while staging still
 * applies the rows); a reader that stops early never runs it.
 */
export async function* tapChunks(source: AsyncIterable<Buffer>, sink: { write(chunk: Buffer): Promise<void> }, afterLast?: () => Promise<void>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    await sink.write(chunk);
    yield chunk;
  }
  await afterLast?.();
}
