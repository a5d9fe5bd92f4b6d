import { liveChange } from './live-changes';

describe('liveChange', () => {
  it('commits one order with its lines, a balance change and a status change in one transaction', () => {
    const sql = liveChange(7);
    expect(sql.startsWith('BEGIN;')).toBe(true);
    expect(sql.endsWith('COMMIT')).toBe(true);
    expect(sql).toContain("INSERT INTO public.orders VALUES (1000007, ");
    expect(sql).toContain('generate_series(0, 1)');
    expect(sql).toContain("UPDATE public.orders SET status = 'shipped' WHERE id = 1000002");
    expect(sql).not.toContain('DELETE');
  });

  it('removes lines of an earlier live order every tenth change', () => {
    expect(liveChange(30)).toContain('DELETE FROM sales.order_lines WHERE order_id = 1000010 AND line > 0');
  });

  it('uses a different order for every tick', () => {
    expect(new Set([1, 2, 3, 4].map((tick) => /VALUES \((\d+),/.exec(liveChange(tick))?.[1])).size).toBe(4);
  });
});
