import type { StagedFiles } from '@svc/contracts';
import type { StagedRowsRewriter } from '@svc/engines';

interface FileSink {
  write(chunk: Buffer): Promise<void>;
  finish(): Promise<StagedFiles>;
  abort(): Promise<void>;
}

/**
 * A batch file writer that writes rows as the warehouse wants them (StagedRowsRewriter): each chunk is
 * rewritten on its way, and a value the warehouse cannot hold fails the write, so the batch fails before
 * any manifest names its files.
 */
export class RewritingFileWriter implements FileSink {
  constructor(
    private readonly files: FileSink,
    private readonly rewriter: StagedRowsRewriter,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    for (const rewritten of this.rewriter.push(chunk)) await this.files.write(rewritten);
  }

  async finish(): Promise<StagedFiles> {
    for (const rewritten of this.rewriter.end()) await this.files.write(rewritten);
    return this.files.finish();
  }

  abort(): Promise<void> {
    return this.files.abort();
  }
}
