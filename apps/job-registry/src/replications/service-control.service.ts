import { Inject, Injectable } from '@nestjs/common';
import { rpcOk, type AlterConfigurationRequest, type RpcReply } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { ServiceConfigurationRepository, type ServiceConfigurationStore } from '@svc/registry-store';
import { validationFailed } from './replication-errors';

/** Service-wide operations: StopReplicationService, StartReplication without an id, AlterConfiguration. */
@Injectable()
export class ServiceControlService {
  constructor(@Inject(ServiceConfigurationRepository) private readonly serviceConfiguration: ServiceConfigurationStore) {}

  /** Every replication reports Stopped until the service is started again; their own settings are kept. */
  async stopService(): Promise<RpcReply<null>> {
    await this.serviceConfiguration.update({ serviceStopped: true });
    return rpcOk(null);
  }

  async startService(): Promise<RpcReply<null>> {
    await this.serviceConfiguration.update({ serviceStopped: false });
    return rpcOk(null);
  }

  async alterConfiguration(request: AlterConfigurationRequest): Promise<RpcReply<null>> {
    const limit = request.parallelDatabaseReplicationsLimit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      return validationFailed([`${fieldLabel(['parallelDatabaseReplicationsLimit'])}: must be a whole number of at least 1`]);
    }
    await this.serviceConfiguration.update({
      ...(request.serializeReplications !== undefined && { serializeReplications: request.serializeReplications }),
      ...(limit !== undefined && { parallelDatabaseReplicationsLimit: limit }),
    });
    return rpcOk(null);
  }
}
