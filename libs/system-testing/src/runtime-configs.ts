import type { NatsConnection, Subscription } from 'nats';
import { ErrorCode, Subjects, rpcError, rpcOk, type ReplicationConfig, type RpcReply, type RuntimeConfigReply } from '@svc/contracts';
import type { NestReplyPacket, NestRequestPacket } from '@svc/messaging';

/** Answers runtime-configuration requests as the registry does (Nest wire format), from a fixed map; NotFound for others. */
export function serveRuntimeConfigs(connection: NatsConnection, configs: ReadonlyMap<string, ReplicationConfig>): Subscription {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return connection.subscribe(Subjects.registryRuntimeConfig, {
    callback: (error, message) => {
      if (error) return;
      const packet = JSON.parse(decoder.decode(message.data)) as NestRequestPacket<{ replicationId: string }>;
      const { replicationId } = packet.data;
      const config = configs.get(replicationId);
      const response: RpcReply<RuntimeConfigReply> = config
        ? rpcOk({ replicationId, configVersion: 1, config })
        : rpcError(ErrorCode.NotFound, [`replication ${replicationId} not found`]);
      const reply: NestReplyPacket = { id: packet.id, response, isDisposed: true };
      message.respond(encoder.encode(JSON.stringify(reply)));
    },
  });
}
