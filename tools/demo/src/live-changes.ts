/**
 * The small transaction `npm start`'s live demo commits in the sample source every few seconds, so that the
 * console shows change cycles, lag and throughput moving: a new order with lines, a balance change, an
 * order's status moving on, now and then a removed line. Pure: the statements for the tick'th change.
 */
export function liveChange(tick: number): string {
  const orderId = 1_000_000 + tick;
  const customerId = 1 + ((tick * 7919) % 20000);
  const lines = 1 + (tick % 3);
  const statements = [
    'BEGIN',
    `INSERT INTO public.orders VALUES (${orderId}, ${customerId}, now(), ${(lines * 19.99).toFixed(2)}, 'placed', 'live demo order ${tick}') ON CONFLICT (id) DO NOTHING`,
    `INSERT INTO sales.order_lines SELECT ${orderId}, l, 'SKU-LIVE-' || l, 1 + l, 19.99 FROM generate_series(0, ${lines - 1}) l ON CONFLICT DO NOTHING`,
    `UPDATE public.customers SET balance = balance - ${(lines * 19.99).toFixed(2)} WHERE id = ${customerId}`,
    `UPDATE public.orders SET status = 'shipped' WHERE id = ${orderId - 5}`,
  ];
  if (tick % 10 === 0) statements.push(`DELETE FROM sales.order_lines WHERE order_id = ${orderId - 20} AND line > 0`);
  statements.push('COMMIT');
  return statements.join(';\n');
}
