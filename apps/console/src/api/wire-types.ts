import type {
  AlertRecord,
  ListReplicationsResponse,
  ReplicationDescription,
  ReplicationMetricsRequest,
  ReplicationMetricsResponse,
  TableStatus,
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
