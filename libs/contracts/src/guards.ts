import { Type, type Static } from '@sinclair/typebox';
import { OPERATIONS } from './replication/operations';
import { ERROR_DETAILS_PERMISSION } from './replication/failure-reason';
import type { OperationEnvelope } from './rpc/envelope';
import { checkerOf, type Guarded } from './schema/check';
import { AnyText, Flag, Matching, NonEmptyList, OneOf, Struct, Text, Timestamp } from './schema/kinds';
import { TableRefSchema } from './pipeline/table';

export type { Guarded } from './schema/check';

/** Either case; without a flag, as the schema's pattern is plain JSON-schema text. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const Guid = () => Matching(UUID, 'must be a GUID');

/** Every value of each header or query parameter, as sent; bounded like any request line. */
const Occurrences = () =>
  Type.Record(Type.String({ maxLength: 256 }), Type.Array(Type.String({ maxLength: 16384 }), { maxItems: 16 }), {
    maxProperties: 128,
    problem: 'must map names to lists of values (at most 128 names, 16 values each)',
  });

/**
 * An API call as its caller signed it, but for the body, which the gateway keeps after checking it against the signed
 * content hash: the method, the path, the query and the headers the signature covers (Authorization with them). The
 * registry verifies it itself, so that nothing on the bus can speak for an access key without that key's signature.
 */
export const SignedCallSchema = Struct({
  method: Text(),
  path: Text(),
  query: Occurrences(),
  headers: Occurrences(),
});
export type SignedCall = Static<typeof SignedCallSchema>;

/** The fields every envelope has; the payload is checked by the API model of its operation afterwards. */
export const OperationEnvelopeSchema = Struct({
  requestId: Text(),
  operation: OneOf(OPERATIONS, 'must name a known operation'),
  payload: Struct({}),
  /** Who calls is what this signature proves, never a field the sender fills in. */
  signed: SignedCallSchema,
});

/** Gateway → registry: an API call's envelope. Its payload is only known to be an object here (see above). */
export const guardOperationEnvelope: (message: unknown) => Guarded<OperationEnvelope> = checkerOf(OperationEnvelopeSchema);

/** Gateway → registry: is this call signed by a known key, and may that key call the operation? Asked before the body is decoded. */
export const SignatureCheckRequestSchema = Struct({
  operation: OneOf(OPERATIONS, 'must name a known operation'),
  signed: SignedCallSchema,
});
export type SignatureCheckRequest = Static<typeof SignatureCheckRequestSchema>;
export const guardSignatureCheckRequest = checkerOf(SignatureCheckRequestSchema);

export const CreateAccessKeyRequestSchema = Struct({
  /** Operation names, or `*` for all. */
  allowedOperations: NonEmptyList(OneOf(['*', ...OPERATIONS, ERROR_DETAILS_PERMISSION], `must be '*', an operation name or ${ERROR_DETAILS_PERMISSION}`)),
  /** 'Own' (default): the replications the key creates; 'All': every replication and the service-wide operations. */
  replicationScope: Type.Optional(OneOf(['Own', 'All'], "must be 'Own' or 'All'")),
  description: Type.Optional(AnyText()),
});
export type CreateAccessKeyRequest = Static<typeof CreateAccessKeyRequestSchema>;
export const guardCreateAccessKeyRequest = checkerOf(CreateAccessKeyRequestSchema);

/** Operator → registry: the lifecycle of access keys (list, disable, enable, delete, rotate with overlap, expire). */
export const ManageAccessKeysRequestSchema = Struct({
  action: OneOf(['List', 'Disable', 'Enable', 'Delete', 'Rotate', 'Expire'] as const, 'must be List, Disable, Enable, Delete, Rotate or Expire'),
  accessKeyId: Type.Optional(Text()),
  /** Rotate: how long the replaced secret still signs (0 to 7 days). */
  overlapMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 24 * 60, problem: 'must be an integer from 0 to 10080' })),
  /** Expire: when the key stops signing; null clears it. */
  expiresAt: Type.Optional(Type.Union([Timestamp(), Type.Null()], { problem: 'must be an ISO timestamp or null' })),
});
export type ManageAccessKeysRequest = Static<typeof ManageAccessKeysRequestSchema>;
export const guardManageAccessKeysRequest = checkerOf(ManageAccessKeysRequestSchema);

/** Internal requests naming one replication (runtime configuration, table discovery); other fields are dropped. */
export const ReplicationIdMessageSchema = Struct({ replicationId: Guid() });
export const guardReplicationIdMessage = checkerOf(ReplicationIdMessageSchema, undefined, { dropUnknownFields: true });

/** Registry → extractor: the replication (a GUID) and the tables whose change tracking goes (a list, possibly empty). */
export const ReleaseTablesRequestSchema = Struct({
  replicationId: Guid(),
  tables: Type.Array(TableRefSchema, { problem: 'must be a list' }),
  forgetStagingRecords: Type.Optional(Type.Array(TableRefSchema, { problem: 'must be a list' })),
  forgetAllStagingRecords: Type.Optional(Flag()),
});
export const guardReleaseTablesRequest = checkerOf(ReleaseTablesRequestSchema, undefined, { dropUnknownFields: true });

/**
 * Registry → extractor: the replication and each tracked table (`[schema].[name]`) with the version its next change
 * read starts at and the source incarnation stored with it.
 */
export const ChangedTablesRequestSchema = Struct({
  replicationId: Guid(),
  tables: Type.Array(Struct({ tableName: Text(), version: Text(), incarnation: Type.Optional(Text()) }), { problem: 'must be a list' }),
  schemaStamps: Type.Optional(Flag()),
});
export const guardChangedTablesRequest = checkerOf(ChangedTablesRequestSchema, undefined, { dropUnknownFields: true });
