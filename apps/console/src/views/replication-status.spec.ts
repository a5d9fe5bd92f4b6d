import { encodeResponse } from '@svc/api-codec';
import type { DescribedReplication } from '../api/wire-types.js';
import { findAll, textOf, type VElement } from '../render/vnode.js';

const statusDetails = (view: VElement) => findAll(view, (element) => (element.attrs['class'] ?? '').split(' ').includes('status-detail'));
import { summaryView } from './replication-views.js';
import { replicationsTable } from './replications-view.js';

/** Describe's answer as the console receives it (JSON on the wire). */
function described(tablesInError: number, statusDetail?: string): DescribedReplication {
  const body = encodeResponse('DescribeWarehouseReplication', 'json', {
    replicationId: '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c',
    replicationName: 'sales',
    status: 'Running',
    tableCount: 2,
    tablesInError,
    ...(statusDetail !== undefined && { statusDetail }),
    createdAt: '2026-11-27T10:00:00.000Z',
    updatedAt: '2026-11-27T10:00:00.000Z',
    // The summary reads DataReplication only.
    configuration: { dataReplication: true } as never,
    tables: [],
    lastError: null,
    alerts: [],
  }).body;
  return JSON.parse(body) as DescribedReplication;
}

describe('a Running replication with tables in Error (issue 38 item 5)', () => {
  it('says so next to its status, in the list and on its page', () => {
    const failing = described(2, 'every table (2) is in Error: nothing is replicated until the causes are fixed');
    const list = replicationsTable([{ replicationId: failing.replicationId, replicationName: 'sales', status: 'Running', described: failing, problem: null }]);
    expect(statusDetails(list).map(textOf)).toEqual(['2 of 2 tables in Error']);
    expect(statusDetails(summaryView(failing)).map(textOf)).toEqual(['every table (2) is in Error: nothing is replicated until the causes are fixed']);
  });

  it('says nothing more when no table is in Error', () => {
    const healthy = described(0);
    expect(statusDetails(replicationsTable([{ replicationId: healthy.replicationId, replicationName: 'sales', status: 'Running', described: healthy, problem: null }]))).toEqual([]);
    expect(statusDetails(summaryView(healthy))).toEqual([]);
  });
});
