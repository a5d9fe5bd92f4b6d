import { type DescribeValidationRequest, type RepairValidationRequest, type StartValidationRequest } from '@svc/contracts';
import { Field } from './decorators';
import { guid, guidNamed } from '../rules/guid';
import { tableSubset } from '../rules/table-selection';

export class StartValidationDto implements StartValidationRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(tableSubset(), 'optional', { default: 'every table the replication replicates', note: "The tables to compare, some of the replication's" })
  tablesToInclude?: string[];
}

export class DescribeValidationDto implements DescribeValidationRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(guidNamed('ValidationId'), 'optional', { default: "the replication's latest validation", note: 'The validation StartReplicationValidation answered' })
  validationId?: string;
}

export class RepairValidationDto implements RepairValidationRequest {
  @Field(guid, 'required') replicationId!: string;
  @Field(guidNamed('ValidationId'), 'required', { note: 'The validation whose Mismatched tables are repaired, as StartReplicationValidation answered it' })
  validationId!: string;
  @Field(tableSubset(), 'optional', { default: 'every table the validation found Mismatched', note: "The tables to repair, some of the validation's Mismatched ones" })
  tablesToInclude?: string[];
}
