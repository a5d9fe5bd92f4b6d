import { type DescribeValidationRequest, type StartValidationRequest } from '@svc/contracts';
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
