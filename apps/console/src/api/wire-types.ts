import type {
  AlertRecord,
  DifferenceKind,
  ListReplicationsResponse,
  RepairValidationResponse,
  ReplicationDescription,
  ReplicationMetricsRequest,
  ReplicationMetricsResponse,
  StartValidationResponse,
  TableStatus,
  TableValidation,
  ValidationDescription,
} from '@svc/contracts/browser';

/** The API's answers as the console reads them: the contracts' own types (libs/contracts), as JSON carries them. */

/**
 * A response as JSON carries it: the gateway's JSON encoder leaves null fields out, so a field that may be null
 * arrives absent instead (libs/api-codec encode.ts).
 */
export type Wire<T> = T extends readonly (infer Item)[]
  ? Wire<Item>[]
  : T extends object
    ? { [K in keyof T as null extends T[K] ? never : K]: Wire<T[K]> } & { [K in keyof T as null extends T[K] ? K : never]?: Wire<Exclude<T[K], null>> }
    : T;

export type DescribedReplication = Wire<ReplicationDescription>;
export type ReplicationList = Wire<ListReplicationsResponse>;
export type DescribedTable = Wire<TableStatus>;
export type Alert = Wire<AlertRecord>;

/** GetReplicationMetrics: the registry's per-table history. */
export type MetricsRequest = ReplicationMetricsRequest;
export type MetricsHistory = Wire<ReplicationMetricsResponse>;
export type MetricsPoint = MetricsHistory['tables'][number]['points'][number];

/**
 * DescribeReplicationValidation as the gateway renders it (libs/api-codec validation-wire.ts): a differing key is a
 * list of its columns, since column names are data; a NULL column has no value.
 */
export interface KeyColumn {
  name: string;
  value: string | null;
}
type TableValidationOnWire = Omit<TableValidation, 'differingKeys'> & { differingKeys: { key: KeyColumn[]; difference: DifferenceKind }[] };
export type DescribedValidation = Wire<Omit<ValidationDescription, 'tables'> & { tables: TableValidationOnWire[] }>;
export type ValidatedTable = DescribedValidation['tables'][number];
export type DifferingKeyShown = ValidatedTable['differingKeys'][number];
export type ValidationStarted = Wire<StartValidationResponse>;
export type RepairQueued = Wire<RepairValidationResponse>;
