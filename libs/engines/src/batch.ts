/** A stream of CSV bytes (see BatchDescriptor); chunk boundaries need not fall between rows. */
export type CsvChunks = AsyncIterable<Buffer>;

export interface ApplyOutcome {
  /** False when the batch had been applied before (or is stale) and nothing changed. */
  applied: boolean;
  rowCount: number;
  /**
   * True when nothing was applied because a batch of a newer unit of work of the same table (a higher
   * epoch) had been applied: the batch belongs to cancelled work and must not be passed on.
   */
  stale?: boolean;
}
