import {
  REPLICATION_DEFAULTS,
  type AlterReplicationRequest,
  type CreateReplicationRequest,
  type ReplicationConfig,
  type TableSelection,
} from '@svc/contracts';
import { Field, Group, NotAllowed } from './decorators';
import {
  ReseedingScheduleChangesDto,
  ReseedingScheduleDto,
  ValidationScheduleChangesDto,
  ValidationScheduleDto,
  SourceDto,
  StagingDto,
  StoredWarehouseDto,
  WarehouseChangesDto,
  WarehouseDto,
} from './groups.dto';
import { booleanText, positiveInteger } from '../rules/scalar-rules';
import { clockTime } from '../rules/clock-time';
import { guid } from '../rules/guid';
import { tableSelection } from '../rules/table-selection';
import { connectionString, replicationName } from '../rules/field-rules';

const includedTables = tableSelection({ allowEmpty: false });
const ALTER_ONLY = 'can be set only by AlterWarehouseReplication';
const CREATE_ONLY = 'can be set only when the replication is created';

/** An Alter field left out keeps its value; `initial` is what Create stores for a setting it cannot carry. */
function unchanged(initial: string | number | boolean): { default: string } {
  return { default: `unchanged; a new replication has ${String(initial)}` };
}

/** CreateWarehouseReplication (seed §2.1), fields in the seed's order. */
export class CreateReplicationDto implements CreateReplicationRequest {
  @Field(positiveInteger, 'required') parallelTablesLimit!: number;
  @Field(booleanText, 'required') rebuildIndexes!: boolean;
  @Group(() => SourceDto, 'required') source!: SourceDto;
  @Group(() => StagingDto, 'required') staging!: StagingDto;
  @Group(() => WarehouseDto, 'required') warehouse!: WarehouseDto;
  @Field(booleanText, 'required') addUpdateTimestamp!: boolean;
  @Field(includedTables, 'required') tablesToInclude!: TableSelection;
  @Group(() => ReseedingScheduleDto, 'optional', { default: 'no scheduled reseeding' }) reseedingSchedule?: ReseedingScheduleDto;
  @Group(() => ValidationScheduleDto, 'optional', { default: 'no scheduled validation' }) validationSchedule?: ValidationScheduleDto;

  // Settings of seed §2.2 that a Create cannot carry: named, so the caller learns where they belong.
  @NotAllowed(ALTER_ONLY) replicationName?: never;
  @NotAllowed(ALTER_ONLY) sourceConnectionString?: never;
  @NotAllowed(ALTER_ONLY) destinationConnectionString?: never;
  @NotAllowed(ALTER_ONLY) dataReplication?: never;
  @NotAllowed(ALTER_ONLY) schemaReplication?: never;
  @NotAllowed(ALTER_ONLY) changeTrackingBatchLimit?: never;
  @NotAllowed(ALTER_ONLY) ctProcessTimeoutInMinutes?: never;
  @NotAllowed(ALTER_ONLY) serializedCtProcessTimeoutInMinutes?: never;
  @NotAllowed(ALTER_ONLY) autoSerializedCtProcessTimeoutInMinutes?: never;
  @NotAllowed(ALTER_ONLY) isContinuous?: never;
  @NotAllowed(ALTER_ONLY) repeatIntervalInMinutes?: never;
  @NotAllowed(ALTER_ONLY) scheduleIntervalTimeFrom?: never;
  @NotAllowed(ALTER_ONLY) scheduleIntervalTimeTo?: never;
  @NotAllowed(ALTER_ONLY) isLogErrorsOnly?: never;
  @NotAllowed(ALTER_ONLY) alertOnSuccessfulTableSchemaChanges?: never;
}

/** AlterWarehouseReplication (seed §2.2): ReplicationId plus whatever is to change. */
export class AlterReplicationDto implements AlterReplicationRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(replicationName, 'optional', unchanged('the source database name')) replicationName?: string;
  @Field(connectionString, 'optional', { note: 'The source database, taken whole (password included)' }) sourceConnectionString?: string;
  @Field(connectionString, 'optional', { note: 'The staging database (the "destination (replica)"), taken whole' })
  destinationConnectionString?: string;
  @Field(booleanText, 'optional', { ...unchanged(REPLICATION_DEFAULTS.dataReplication), note: 'false stops the replication' })
  dataReplication?: boolean;
  @Field(booleanText, 'optional', unchanged(REPLICATION_DEFAULTS.schemaReplication)) schemaReplication?: boolean;
  @Field(positiveInteger, 'optional') parallelTablesLimit?: number;
  @Field(positiveInteger, 'optional', unchanged(REPLICATION_DEFAULTS.changeTrackingBatchLimit)) changeTrackingBatchLimit?: number;
  @Field(positiveInteger, 'optional', unchanged(REPLICATION_DEFAULTS.ctProcessTimeoutInMinutes)) ctProcessTimeoutInMinutes?: number;
  @Field(positiveInteger, 'optional', unchanged(REPLICATION_DEFAULTS.serializedCtProcessTimeoutInMinutes))
  serializedCtProcessTimeoutInMinutes?: number;
  @Field(positiveInteger, 'optional', unchanged(REPLICATION_DEFAULTS.autoSerializedCtProcessTimeoutInMinutes))
  autoSerializedCtProcessTimeoutInMinutes?: number;
  @Field(booleanText, 'optional', unchanged(REPLICATION_DEFAULTS.isContinuous)) isContinuous?: boolean;
  @Field(positiveInteger, 'optional', { note: 'Minutes between runs; required once IsContinuous is false' }) repeatIntervalInMinutes?: number;
  @Field(clockTime, 'optional', { note: 'Start of the daily window; given together with ScheduleIntervalTimeTo' }) scheduleIntervalTimeFrom?: string;
  @Field(clockTime, 'optional', { note: 'End of the daily window; given together with ScheduleIntervalTimeFrom' }) scheduleIntervalTimeTo?: string;
  @Field(booleanText, 'optional', unchanged(REPLICATION_DEFAULTS.isLogErrorsOnly)) isLogErrorsOnly?: boolean;
  @Field(booleanText, 'optional', unchanged(REPLICATION_DEFAULTS.alertOnSuccessfulTableSchemaChanges))
  alertOnSuccessfulTableSchemaChanges?: boolean;
  @Field(includedTables, 'optional') tablesToInclude?: TableSelection;
  @Group(() => WarehouseChangesDto, 'optional') warehouse?: WarehouseChangesDto;
  @Group(() => ReseedingScheduleChangesDto, 'optional') reseedingSchedule?: ReseedingScheduleChangesDto;
  @Group(() => ValidationScheduleChangesDto, 'optional') validationSchedule?: ValidationScheduleChangesDto;

  @NotAllowed(CREATE_ONLY) addUpdateTimestamp?: never;
  @NotAllowed(CREATE_ONLY) rebuildIndexes?: never;
  @NotAllowed(`${CREATE_ONLY}; change the connection string with SourceConnectionString`) source?: never;
  @NotAllowed(`${CREATE_ONLY}; change the connection string with DestinationConnectionString`) staging?: never;
}

/**
 * A stored configuration after an Alter was merged into it: the Create rules, complete, plus the settings
 * only Alter changes and the rules that tie them together.
 */
export class ReplicationConfigDto implements ReplicationConfig {
  @Field(replicationName, 'required') replicationName!: string;
  @Field(positiveInteger, 'required') parallelTablesLimit!: number;
  @Field(booleanText, 'required') rebuildIndexes!: boolean;
  @Group(() => SourceDto, 'required') source!: SourceDto;
  @Group(() => StagingDto, 'required') staging!: StagingDto;
  @Group(() => StoredWarehouseDto, 'required') warehouse!: StoredWarehouseDto;
  @Field(booleanText, 'required') addUpdateTimestamp!: boolean;
  @Field(includedTables, 'required') tablesToInclude!: TableSelection;
  @Group(() => ReseedingScheduleDto, 'optional') reseedingSchedule?: ReseedingScheduleDto;
  @Group(() => ValidationScheduleDto, 'optional') validationSchedule?: ValidationScheduleDto;
  @Field(booleanText, 'required') dataReplication!: boolean;
  @Field(booleanText, 'required') schemaReplication!: boolean;
  @Field(positiveInteger, 'required') changeTrackingBatchLimit!: number;
  @Field(positiveInteger, 'required') ctProcessTimeoutInMinutes!: number;
  @Field(positiveInteger, 'required') serializedCtProcessTimeoutInMinutes!: number;
  @Field(positiveInteger, 'required') autoSerializedCtProcessTimeoutInMinutes!: number;
  @Field(booleanText, 'required') isContinuous!: boolean;
  @Field(positiveInteger, {
    requiredWhen: (config) => config['isContinuous'] === false,
    reason: 'is required when IsContinuous is false',
  })
  repeatIntervalInMinutes?: number;
  @Field(clockTime, {
    requiredWhen: (config) => config['scheduleIntervalTimeTo'] !== undefined,
    reason: 'is required when ScheduleIntervalTimeTo is set',
  })
  scheduleIntervalTimeFrom?: string;
  @Field(clockTime, {
    requiredWhen: (config) => config['scheduleIntervalTimeFrom'] !== undefined,
    reason: 'is required when ScheduleIntervalTimeFrom is set',
  })
  scheduleIntervalTimeTo?: string;
  @Field(booleanText, 'required') isLogErrorsOnly!: boolean;
  @Field(booleanText, 'required') alertOnSuccessfulTableSchemaChanges!: boolean;
}
