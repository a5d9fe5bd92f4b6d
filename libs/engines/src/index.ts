export type { ApplyOutcome, CsvChunks } from './batch';
export type {
  ChangeRead,
  RowStream,
  ReadOptions,
  SnapshotRead,
  SourceConnector,
  StagedFileReader,
  StagingConnector,
  WarehouseConnector,
  WarehouseTableOptions,
} from './capabilities';
