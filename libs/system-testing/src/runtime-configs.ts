import type { NatsConnection, Subscription } from 'nats';
import { ErrorCode, Subjects, rpcError, rpcOk, type ReplicationConfig, type RpcReply, type RuntimeConfigReply, type RuntimeConfigRequest } from '@svc/contracts';
import { RuntimeConfigSeal, parseMasterKey } from '@svc/crypto';
import { busNames, type NestReplyPacket, type NestRequestPacket } from '@svc/messaging';
import { TEST_WORKER_KEY } from '@svc/testing';

/**
 * Answers runtime-configuration requests as the registry does (Nest wire format, the worker's proof checked, the
 * configuration sealed with the worker key), from a fixed map; NotFound for others.
 */
export function serveRuntimeConfigs(connection: NatsConnection, configs: ReadonlyMap<string, ReplicationConfig>, workerKey = TEST_WORKER_KEY): Subscription {
  const seal = new RuntimeConfigSeal(parseMasterKey(workerKey));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return connection.subscribe(busNames().subject(Subjects.registryRuntimeConfig), {
    callback: (error, message) => {
      if (error) return;
      const packet = JSON.parse(decoder.decode(message.data)) as NestRequestPacket<RuntimeConfigRequest>;
      const { replicationId, proof } = packet.data;
      const config = configs.get(replicationId);
      const response: RpcReply<RuntimeConfigReply> = !seal.verify(replicationId, proof)
        ? rpcError(ErrorCode.Forbidden, ['not authorised'])
        : config
          ? rpcOk({ replicationId, configVersion: 1, sealedConfig: seal.seal(JSON.stringify(config), replicationId, proof.nonce) })
          : rpcError(ErrorCode.NotFound, [`replication ${replicationId} not found`]);
      const reply: NestReplyPacket = { id: packet.id, response, isDisposed: true };
      message.respond(encoder.encode(JSON.stringify(reply)));
    },
  });
}
