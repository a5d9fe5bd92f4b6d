import { retentionReconciled } from './tracking-sql';

describe('retentionReconciled: one retention per database, shared by every replication of it', () => {
  it('says when tracking was switched on, or the retention raised to what this replication asks', () => {
    expect(retentionReconciled(48, null)).toBe("Change Tracking switched on for the database with 48 hours' retention");
    expect(retentionReconciled(168, 48)).toBe("the database's Change Tracking retention raised from 48 to 168 hours, as this replication's ChangeTrackingRetentionPeriod asks");
  });

  it('explains a longer retention it keeps, never shortening it for another replication', () => {
    expect(retentionReconciled(24, 72)).toContain('keeps changes 72 hours, longer than this replication\'s 24');
  });

  it('says nothing when the retention is as asked', () => {
    expect(retentionReconciled(48, 48)).toBeNull();
  });
});
