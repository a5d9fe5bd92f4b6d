import {
  type AlterReplicationRequest,
  type CreateReplicationRequest,
  type ReplicationConfig,
  type TableSelection,
} from '@svc/contracts';
import { Field, Group, NotAllowed } from './decorators';
import {
  ReseedingScheduleChangesDto,
  ReseedingScheduleDto,
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

/** CreateWarehouseReplication (seed §2.1), fields in the seed's order. */
export class CreateReplicationDto implements CreateReplicationRequest {
  @Field(positiveInteger, 'required') parallelTablesLimit!: number;
  @Field(booleanText, 'required') rebuildIndexes!: boolean;
  @Group(() => SourceDto, 'required') source!: SourceDto;
  @Group(() => StagingDto, 'required') staging!: StagingDto;
  @Group(() => WarehouseDto, 'required') warehouse!: WarehouseDto;
  @Field(booleanText, 'required') addUpdateTimestamp!: boolean;
  @Field(includedTables, 'required') tablesToInclude!: TableSelection;
  @Group(() => ReseedingScheduleDto, 'optional') reseedingSchedule?: ReseedingScheduleDto;

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
  @Field(replicationName, 'optional') replicationName?: string;
  @Field(connectionString, 'optional') sourceConnectionString?: string;
  @Field(connectionString, 'optional') destinationConnectionString?: string;
  @Field(booleanText, 'optional') dataReplication?: boolean;
  @Field(booleanText, 'optional') schemaReplication?: boolean;
  @Field(positiveInteger, 'optional') parallelTablesLimit?: number;
  @Field(positiveInteger, 'optional') changeTrackingBatchLimit?: number;
  @Field(positiveInteger, 'optional') ctProcessTimeoutInMinutes?: number;
  @Field(positiveInteger, 'optional') serializedCtProcessTimeoutInMinutes?: number;
  @Field(positiveInteger, 'optional') autoSerializedCtProcessTimeoutInMinutes?: number;
  @Field(booleanText, 'optional') isContinuous?: boolean;
  @Field(positiveInteger, 'optional') repeatIntervalInMinutes?: number;
  @Field(clockTime, 'optional') scheduleIntervalTimeFrom?: string;
  @Field(clockTime, 'optional') scheduleIntervalTimeTo?: string;
  @Field(booleanText, 'optional') isLogErrorsOnly?: boolean;
  @Field(booleanText, 'optional') alertOnSuccessfulTableSchemaChanges?: boolean;
  @Field(includedTables, 'optional') tablesToInclude?: TableSelection;
  @Group(() => WarehouseChangesDto, 'optional') warehouse?: WarehouseChangesDto;
  @Group(() => ReseedingScheduleChangesDto, 'optional') reseedingSchedule?: ReseedingScheduleChangesDto;

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
