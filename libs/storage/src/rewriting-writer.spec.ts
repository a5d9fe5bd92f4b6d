import type { StagedFiles } from '@svc/contracts';
import type { StagedRowsRewriter } from '@svc/engines';
import { RewritingFileWriter } from './rewriting-writer';

class RecordingSink {
  readonly written: string[] = [];
  finished = false;
  aborted = false;

  write(chunk: Buffer): Promise<void> {
    this.written.push(chunk.toString());
    return Promise.resolve();
  }

  finish(): Promise<StagedFiles> {
    this.finished = true;
    return Promise.resolve({ bucket: 'b', manifestKey: 'm', partKeys: ['p'] });
  }

  abort(): Promise<void> {
    this.aborted = true;
    return Promise.resolve();
  }
}

/** Upper-cases whole lines, holding back an unfinished one; refuses a line saying "bad". */
function lineRewriter(): StagedRowsRewriter {
  let pending = '';
  const lines = (text: string) => {
    if (/^bad$/m.test(text)) throw new Error('a value the warehouse cannot hold');
    return text ? [Buffer.from(text.toUpperCase())] : [];
  };
  return {
    push(chunk) {
      pending += chunk.toString();
      const end = pending.lastIndexOf('\n') + 1;
      const complete = pending.slice(0, end);
      pending = pending.slice(end);
      return lines(complete);
    },
    end() {
      if (pending) throw new Error('the input ended inside a row');
      return [];
    },
  };
}

describe('RewritingFileWriter', () => {
  it('writes what the rewriter makes of each chunk, then finishes the files', async () => {
    const sink = new RecordingSink();
    const writer = new RewritingFileWriter(sink, lineRewriter());
    await writer.write(Buffer.from('ab\nc'));
    await writer.write(Buffer.from('d\n'));
    expect(await writer.finish()).toEqual({ bucket: 'b', manifestKey: 'm', partKeys: ['p'] });
    expect(sink.written).toEqual(['AB\n', 'CD\n']);
    expect(sink.finished).toBe(true);
  });

  it('fails the write of a value the rewriter refuses, and never finishes a batch that ends inside a row', async () => {
    const refusing = new RewritingFileWriter(new RecordingSink(), lineRewriter());
    await expect(refusing.write(Buffer.from('bad\n'))).rejects.toThrow('cannot hold');
    const sink = new RecordingSink();
    const cut = new RewritingFileWriter(sink, lineRewriter());
    await cut.write(Buffer.from('half'));
    await expect(cut.finish()).rejects.toThrow('inside a row');
    expect(sink.finished).toBe(false);
    await cut.abort();
    expect(sink.aborted).toBe(true);
  });
});
