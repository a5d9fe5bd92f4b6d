import { tableKey, type TableRef } from '@svc/contracts';
import { EngineError } from '@svc/engines';
import type { BinlogPosition } from './binlog/binlog-position';

/** A server setting stops change capture (the binary log off, not in ROW format, not FULL images): the table stops until it is fixed. */
export class CaptureSettingError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;

  constructor(problem: string) {
    super(`Source: ${problem}`);
    this.name = 'CaptureSettingError';
  }
}

/**
 * The binary log holds a statement that rewrote the table (TRUNCATE, DROP, RENAME, an ALTER other than columns added
 * at the end): the rows it changed leave no row events, or rows before it no longer read with the table's columns,
 * so the changes after the watermark are incomplete and the table is reseeded.
 */
export class TableRewrittenError extends EngineError {
  readonly kind = 'changes-purged';
  override readonly serviceWorded = true;

  constructor(table: TableRef, statement: string, at: BinlogPosition) {
    super(
      `the source's binary log holds ${statement} on ${tableKey(table)} at ${at.file}:${at.position}, which its row changes cannot be ` +
        'followed across (only columns added at the end can): the table is reseeded',
    );
    this.name = 'TableRewrittenError';
  }
}

/** An event the reader cannot pass over (compressed rows or transactions): a server setting to change, named in the message. */
export class UnreadableLogError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;

  constructor(reason: string) {
    super(`Source: ${reason}`);
    this.name = 'UnreadableLogError';
  }
}
