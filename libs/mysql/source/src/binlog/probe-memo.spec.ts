import { ProbeMemo } from './probe-memo';

const at = (file: number, position: number) => ({ file: `binlog.${String(file).padStart(6, '0')}`, position });
const WATERMARK = at(3, 400);
const SERVER = 'mariadb:server-1:binlog';

describe('ProbeMemo: a probe of an idle table reads on from where the last one found nothing', () => {
  it('starts at the watermark when no probe of it found nothing yet', () => {
    expect(new ProbeMemo().startOf('shop\0orders', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(WATERMARK);
  });

  it('starts where the last quiet probe at the same watermark ended', () => {
    const memo = new ProbeMemo();
    memo.record('shop\0orders', '100', SERVER, { end: at(3, 5000) });
    expect(memo.startOf('shop\0orders', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(at(3, 5000));
    memo.record('shop\0orders', '100', SERVER, { end: at(3, 9000) });
    expect(memo.startOf('shop\0orders', '100', SERVER, WATERMARK, at(3, 9500))).toEqual(at(3, 9000));
  });

  it('starts at the watermark again once a change was found, the watermark moved, or the server is another', () => {
    const memo = new ProbeMemo();
    memo.record('shop\0orders', '100', SERVER, { end: at(3, 5000) });
    expect(memo.startOf('shop\0orders', '101', SERVER, at(3, 450), at(3, 9000))).toEqual(at(3, 450));
    expect(memo.startOf('shop\0orders', '100', 'mysql:other:binlog', WATERMARK, at(3, 9000))).toEqual(WATERMARK);
    memo.record('shop\0orders', '100', SERVER, 'changed');
    expect(memo.startOf('shop\0orders', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(WATERMARK);
  });

  it('does not trust a place past the log\'s end now (the log was reset) and forgets it', () => {
    const memo = new ProbeMemo();
    memo.record('shop\0orders', '100', SERVER, { end: at(3, 5000) });
    expect(memo.startOf('shop\0orders', '100', SERVER, WATERMARK, at(3, 4000))).toEqual(WATERMARK);
    expect(memo.startOf('shop\0orders', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(WATERMARK);
  });

  it('keeps each table apart, and at most maxTables of them', () => {
    const memo = new ProbeMemo(2);
    memo.record('a', '100', SERVER, { end: at(3, 500) });
    memo.record('b', '100', SERVER, { end: at(3, 600) });
    memo.record('c', '100', SERVER, { end: at(3, 700) });
    expect(memo.startOf('a', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(WATERMARK);
    expect(memo.startOf('b', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(at(3, 600));
    expect(memo.startOf('c', '100', SERVER, WATERMARK, at(3, 9000))).toEqual(at(3, 700));
  });
});
