import {
  REPLICATION_DEFAULTS,
  type AccessType,
  type ReseedingSchedule,
  type RetentionPeriod,
  type ScdType,
  type SourceConfig,
  type StagingConfig,
  type TableSelection,
  type ValidationSchedule,
  type WarehouseConfig,
} from '@svc/contracts';
import { AccessCredential, Field, NotAllowed } from './decorators';
import { MAX_INTEGER, booleanText, integerBetween, positiveInteger } from '../rules/scalar-rules';
import { clockTime } from '../rules/clock-time';
import { tableSelection } from '../rules/table-selection';
import * as rules from '../rules/field-rules';

const reseedTables = tableSelection({ allowEmpty: true });
/** 0 turns a validation schedule off. */
const validationInterval = integerBetween(0, MAX_INTEGER);
const VALIDATION_INTERVAL_NOTE = 'Minutes between the starts of two validations of every table; 0 turns the schedule off';

export class SourceDto implements SourceConfig {
  @Field(rules.connectionString, 'required') connectionString!: string;
  @Field(booleanText, 'required') encryptDataInTransit!: boolean;
  @Field(rules.retentionPeriod, 'required') changeTrackingRetentionPeriod!: RetentionPeriod;
  /** Only in the seed's JSON example; true re-initialises change tracking. */
  @Field(booleanText, 'optional', { default: 'false', note: 'JSON only in the original specification; accepted in both formats' })
  resetChangeTracking?: boolean;
}

export class StagingDto implements StagingConfig {
  @Field(rules.connectionString, 'required') connectionString!: string;
  @Field(booleanText, 'required') encryptDataInTransit!: boolean;
  @Field(booleanText, 'required') replicateCompatibilityLevel!: boolean;
}

/** Every Warehouse field of a Create, all required (credentials by AccessType). */
abstract class CompleteWarehouseDto implements WarehouseConfig {
  @Field(rules.accessType, 'required') accessType!: AccessType;
  @AccessCredential('AccessKey', rules.accessKey, 'complete') accessKey?: string;
  @AccessCredential('AccessKey', rules.secretKey, 'complete') secretKey?: string;
  @AccessCredential('IAMRole', rules.accountId, 'complete') accountId?: string;
  @AccessCredential('IAMRole', rules.roleName, 'complete') roleName?: string;
  @Field(rules.bucketName, 'required') bucketName!: string;
  @Field(rules.bucketFolderName, 'required') bucketFolderName!: string;
  @Field(rules.regionEndpoint, 'required') regionEndpoint!: string;
  @Field(positiveInteger, 'required') retentionDays!: number;
  @Field(rules.warehouseUrl, 'required') url!: string;
  @Field(rules.warehouseIdentifier, 'required') databaseSchema!: string;
  @Field(rules.warehouseIdentifier, 'required') databaseName!: string;
  @Field(rules.warehouseIdentifier, 'required') username!: string;
  @Field(rules.password, 'required') password!: string;
  @Field(rules.scdType, 'required') scdType!: ScdType;
}

/** Warehouse of a Create request: TimeoutInMins is an Alter setting. */
export class WarehouseDto extends CompleteWarehouseDto {
  @NotAllowed('can be set only by AlterWarehouseReplication') timeoutInMins?: never;
}

/** Warehouse of a stored configuration: Create fields plus the timeout, which has a default. */
export class StoredWarehouseDto extends CompleteWarehouseDto {
  @Field(positiveInteger, 'required') timeoutInMins!: number;
}

/** Warehouse of an Alter request: whatever is to change; the merged result is checked as a whole later. */
export class WarehouseChangesDto implements Partial<WarehouseConfig> {
  @Field(rules.accessType, 'optional') accessType?: AccessType;
  @AccessCredential('AccessKey', rules.accessKey, 'partial') accessKey?: string;
  @AccessCredential('AccessKey', rules.secretKey, 'partial') secretKey?: string;
  @AccessCredential('IAMRole', rules.accountId, 'partial') accountId?: string;
  @AccessCredential('IAMRole', rules.roleName, 'partial') roleName?: string;
  @Field(rules.bucketName, 'optional') bucketName?: string;
  @Field(rules.bucketFolderName, 'optional') bucketFolderName?: string;
  @Field(rules.regionEndpoint, 'optional') regionEndpoint?: string;
  @Field(positiveInteger, 'optional') retentionDays?: number;
  @Field(rules.warehouseUrl, 'optional') url?: string;
  @Field(rules.warehouseIdentifier, 'optional') databaseSchema?: string;
  @Field(rules.warehouseIdentifier, 'optional') databaseName?: string;
  @Field(rules.warehouseIdentifier, 'optional') username?: string;
  @Field(rules.password, 'optional') password?: string;
  @Field(rules.scdType, 'optional') scdType?: ScdType;
  @Field(positiveInteger, 'optional', { default: `unchanged; a new replication has ${REPLICATION_DEFAULTS.warehouseTimeoutInMins}` })
  timeoutInMins?: number;
}

/** The group itself is optional but, when given on Create, has all five members. */
export class ReseedingScheduleDto implements ReseedingSchedule {
  @Field(reseedTables, 'required') noPkTablesToInclude!: TableSelection;
  @Field(reseedTables, 'required') pkTablesToInclude!: TableSelection;
  @Field(clockTime, 'required') fromTime!: string;
  @Field(clockTime, 'required') toTime!: string;
  @Field(positiveInteger, 'required') repeatIntervalInMinutes!: number;
}

export class ReseedingScheduleChangesDto implements Partial<ReseedingSchedule> {
  @Field(reseedTables, 'optional') noPkTablesToInclude?: TableSelection;
  @Field(reseedTables, 'optional') pkTablesToInclude?: TableSelection;
  @Field(clockTime, 'optional') fromTime?: string;
  @Field(clockTime, 'optional') toTime?: string;
  @Field(positiveInteger, 'optional') repeatIntervalInMinutes?: number;
}

/** Not in the seed (issue 24): when given on Create, or first given on Alter, it has all three members. */
export class ValidationScheduleDto implements ValidationSchedule {
  @Field(clockTime, 'required', { note: 'Start of the daily window in which a scheduled validation may start' }) fromTime!: string;
  @Field(clockTime, 'required', { note: 'End of that window' }) toTime!: string;
  @Field(validationInterval, 'required', { note: VALIDATION_INTERVAL_NOTE }) repeatIntervalInMinutes!: number;
}

export class ValidationScheduleChangesDto implements Partial<ValidationSchedule> {
  @Field(clockTime, 'optional') fromTime?: string;
  @Field(clockTime, 'optional') toTime?: string;
  @Field(validationInterval, 'optional', { note: VALIDATION_INTERVAL_NOTE }) repeatIntervalInMinutes?: number;
}
