import { SECRET_MASK, type ReplicationConfig } from '@svc/contracts';
import { maskConnectionString } from './connection-string-mask';
import { configLeaves } from './config-paths';

/** The secret fields of a configuration; they are stored sealed, never in the jsonb column. */
interface ConfigSecrets {
  sourceConnectionString: string;
  stagingConnectionString: string;
  warehouseSecretKey?: string;
  warehousePassword: string;
}

/** A configuration without its secret fields: what the `config` jsonb column holds. */
export type PublicConfig = Omit<ReplicationConfig, 'source' | 'staging' | 'warehouse'> & {
  source: Omit<ReplicationConfig['source'], 'connectionString'>;
  staging: Omit<ReplicationConfig['staging'], 'connectionString'>;
  warehouse: Omit<ReplicationConfig['warehouse'], 'secretKey' | 'password'>;
};

export function splitSecrets(config: ReplicationConfig): { publicConfig: PublicConfig; secretsJson: string } {
  const { connectionString: sourceConnectionString, ...source } = config.source;
  const { connectionString: stagingConnectionString, ...staging } = config.staging;
  const { secretKey: warehouseSecretKey, password: warehousePassword, ...warehouse } = config.warehouse;
  const secrets: ConfigSecrets = {
    sourceConnectionString,
    stagingConnectionString,
    ...(warehouseSecretKey !== undefined && { warehouseSecretKey }),
    warehousePassword,
  };
  return { publicConfig: { ...config, source, staging, warehouse }, secretsJson: JSON.stringify(secrets) };
}

export function joinSecrets(publicConfig: PublicConfig, secretsJson: string): ReplicationConfig {
  const secrets = JSON.parse(secretsJson) as ConfigSecrets;
  return {
    ...publicConfig,
    source: { ...publicConfig.source, connectionString: secrets.sourceConnectionString },
    staging: { ...publicConfig.staging, connectionString: secrets.stagingConnectionString },
    warehouse: {
      ...publicConfig.warehouse,
      ...(secrets.warehouseSecretKey !== undefined && { secretKey: secrets.warehouseSecretKey }),
      password: secrets.warehousePassword,
    },
  };
}

/** A copy with secret keys and passwords replaced by SECRET_MASK and connection strings and the warehouse URL password-masked. */
export function maskConfigSecrets(config: ReplicationConfig): ReplicationConfig {
  return {
    ...config,
    source: { ...config.source, connectionString: maskConnectionString(config.source.connectionString) },
    staging: { ...config.staging, connectionString: maskConnectionString(config.staging.connectionString) },
    warehouse: {
      ...config.warehouse,
      // The API refuses credentials in Url; a configuration stored before that rule may still hold some.
      url: maskConnectionString(config.warehouse.url),
      ...(config.warehouse.secretKey !== undefined && { secretKey: SECRET_MASK }),
      password: SECRET_MASK,
    },
  };
}

/** Masked values of the given leaf paths; a path the configuration no longer has maps to null. */
export function maskedValuesAt(config: ReplicationConfig, paths: readonly string[]): Record<string, unknown> {
  const leaves = configLeaves(maskConfigSecrets(config));
  return Object.fromEntries(paths.map((path) => [path, leaves.get(path) ?? null]));
}
