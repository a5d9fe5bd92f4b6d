import { comparePositions, type BinlogPosition } from './binlog-position';

interface Quiet {
  /** The watermark the probes read from. */
  version: string;
  /** The server's log the positions belong to (SourceConnector's incarnation). */
  incarnation: string;
  /** Where the last of them ended: a transaction boundary; nothing of the table's between the watermark and here. */
  end: BinlogPosition;
}

/**
 * What the change probe already read of the log for each idle table. A table's watermark only moves when its cycle runs,
 * so a probe of an idle table would read the log from its last change to the end every time — on a busy server, up to a
 * whole log file of other tables' writes, several times a second. A probe that found nothing for the table since the
 * watermark is remembered, and the next probe at the same watermark reads on from where it ended.
 */
export class ProbeMemo {
  private readonly quiet = new Map<string, Quiet>();

  constructor(private readonly maxTables = 100_000) {}

  /**
   * Where a probe of the table at `version` starts: `from` (the watermark's position), or past it where earlier probes
   * at that watermark read and found nothing — unless the log now ends before that place (it was reset) or is another.
   */
  startOf(table: string, version: string, incarnation: string, from: BinlogPosition, logEnd: BinlogPosition): BinlogPosition {
    const known = this.quiet.get(table);
    if (known === undefined || known.version !== version || known.incarnation !== incarnation) return from;
    if (comparePositions(known.end, logEnd) > 0 || comparePositions(known.end, from) < 0) {
      this.quiet.delete(table);
      return from;
    }
    return known.end;
  }

  /** The probe's outcome for the table: nothing up to `end` (kept), or a change (forgotten: its cycle moves the watermark). */
  record(table: string, version: string, incarnation: string, outcome: { end: BinlogPosition } | 'changed'): void {
    this.quiet.delete(table);
    if (outcome === 'changed') return;
    if (this.quiet.size >= this.maxTables) this.quiet.delete(this.quiet.keys().next().value ?? '');
    this.quiet.set(table, { version, incarnation, end: outcome.end });
  }
}
