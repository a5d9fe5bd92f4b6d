import { REPLICATION_DEFAULTS, type ReplicationConfig } from '@svc/contracts';
import { parseOperationRequest, validateMergedConfig } from './parse-operation-request';
import { createAccessKeyTree } from './spec-support/seed-requests';

function storedConfig(): ReplicationConfig {
  const created = parseOperationRequest('CreateWarehouseReplication', createAccessKeyTree());
  if (!created.ok) throw new Error(created.messages.join(' | '));
  const { warehouseTimeoutInMins, ...defaults } = REPLICATION_DEFAULTS;
  return {
    ...created.value,
    ...defaults,
    replicationName: 'Sales',
    warehouse: { ...created.value.warehouse, timeoutInMins: warehouseTimeoutInMins },
  };
}

describe('validateMergedConfig', () => {
  it('accepts a configuration made from a valid Create and the defaults', () => {
    expect(validateMergedConfig(storedConfig())).toEqual([]);
  });

  it('requires the new credentials and refuses the old ones when an Alter changed the AccessType', () => {
    const config = storedConfig();
    config.warehouse = { ...config.warehouse, accessType: 'IAMRole' };
    expect(validateMergedConfig(config).sort()).toEqual(
      [
        '{Warehouse\\AccessKey}: must not be given when AccessType is IAMRole',
        '{Warehouse\\SecretKey}: must not be given when AccessType is IAMRole',
        '{Warehouse\\AccountId}: is required when AccessType is IAMRole',
        '{Warehouse\\RoleName}: is required when AccessType is IAMRole',
      ].sort(),
    );
  });

  it('accepts the switch once the Alter brought the new credentials and the registry dropped the old ones', () => {
    const config = storedConfig();
    config.warehouse = { ...config.warehouse, accessType: 'IAMRole', accountId: '123456789012', roleName: 'RedshiftCopyRole' };
    delete config.warehouse.accessKey;
    delete config.warehouse.secretKey;
    expect(validateMergedConfig(config)).toEqual([]);
  });

  it('requires RepeatIntervalInMinutes when IsContinuous is false', () => {
    const config = { ...storedConfig(), isContinuous: false };
    expect(validateMergedConfig(config)).toEqual(['{RepeatIntervalInMinutes}: is required when IsContinuous is false']);
    expect(validateMergedConfig({ ...config, repeatIntervalInMinutes: 15 })).toEqual([]);
  });

  it('requires both ends of the schedule window', () => {
    expect(validateMergedConfig({ ...storedConfig(), scheduleIntervalTimeFrom: '12:20:00 AM' })).toEqual([
      '{ScheduleIntervalTimeTo}: is required when ScheduleIntervalTimeFrom is set',
    ]);
    expect(validateMergedConfig({ ...storedConfig(), scheduleIntervalTimeTo: '11:40:00 PM' })).toEqual([
      '{ScheduleIntervalTimeFrom}: is required when ScheduleIntervalTimeTo is set',
    ]);
  });

  it('requires a complete ReseedingSchedule after a partial one was merged into none', () => {
    const config = storedConfig();
    const partial = { repeatIntervalInMinutes: 60 } as unknown as ReplicationConfig['reseedingSchedule'];
    expect(validateMergedConfig({ ...config, reseedingSchedule: partial }).sort()).toEqual(
      [
        '{ReseedingSchedule\\NoPkTablesToInclude}: is required',
        '{ReseedingSchedule\\PkTablesToInclude}: is required',
        '{ReseedingSchedule\\FromTime}: is required',
        '{ReseedingSchedule\\ToTime}: is required',
      ].sort(),
    );
  });

  it('requires the Alter-only settings a stored configuration always has', () => {
    const config = storedConfig();
    delete (config.warehouse as Partial<ReplicationConfig['warehouse']>).timeoutInMins;
    expect(validateMergedConfig(config)).toEqual(['{Warehouse\\TimeoutInMins}: is required']);
  });
});
