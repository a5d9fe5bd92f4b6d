/** A stream of CSV bytes (see BatchDescriptor); chunk boundaries need not fall between rows. */
export type CsvChunks = AsyncIterable<Buffer>;

export interface ApplyOutcome {
  /** False when the batch had been applied before (or is stale) and nothing changed. */
  applied: boolean;
  rowCount: number;
}
