import type { AlertNotice } from '../alert-notice';

/** A notice with every field set; `overrides` replace fields (an undefined value removes an optional one). */
export function sampleAlertNotice(overrides: Partial<AlertNotice> = {}): AlertNotice {
  const notice: AlertNotice = {
    deliveryId: 'alert-0001:ops-target',
    alertId: 'alert-0001',
    replicationId: 'rep-orders',
    replicationName: 'orders to warehouse',
    kind: 'Failure',
    state: 'Active',
    message: 'loading [dbo].[orders] failed: the warehouse refused the connection',
    tableName: '[dbo].[orders]',
    createdAt: '2026-01-02T03:04:05.000Z',
    installation: 'eu-prod',
    attempt: 1,
    ...overrides,
  };
  for (const key of Object.keys(notice) as (keyof AlertNotice)[]) if (notice[key] === undefined) delete notice[key];
  return notice;
}
