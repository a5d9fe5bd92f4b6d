import { comparePositions, type BinlogPosition } from './binlog-position';
import type { TableRead, TableReadResult } from './change-scan';

type Scan = (until: BinlogPosition, reads: readonly TableRead[]) => Promise<TableReadResult[]>;

interface Waiting {
  read: TableRead;
  until: BinlogPosition;
  resolve: (result: TableReadResult) => void;
  reject: (error: unknown) => void;
}

/**
 * One binary-log reader for every table of a source: the change reads that arrive while a scan is being gathered (the
 * extractor runs several tables' cycles at once) share one scan, from the oldest of their positions to the furthest log
 * end any of them saw, each still getting only its own table's keys from its own position. A read never waits for
 * another scan to end: reads arriving during one are gathered into the next, which starts at once.
 */
export class SharedLogReader {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly scan: Scan,
    /** How long the first read waits for others to join its scan. */
    private readonly gatherMs = 5,
  ) {}

  read(read: TableRead, until: BinlogPosition): Promise<TableReadResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ read, until, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setTimeout(() => void this.flush(), this.gatherMs);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    const until = batch.map((entry) => entry.until).reduce((left, right) => (comparePositions(left, right) >= 0 ? left : right));
    try {
      const results = await this.scan(until, batch.map((entry) => entry.read));
      batch.forEach((entry, index) => {
        const result = results[index];
        if (result === undefined) entry.reject(new Error('the shared binary-log scan answered fewer reads than it was given'));
        else entry.resolve(result);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
