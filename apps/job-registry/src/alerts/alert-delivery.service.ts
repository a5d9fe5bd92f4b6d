import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AlertDeliveryError, createAlertSender, type AlertNotice, type AlertSender } from '@svc/alert-delivery';
import { JsonLogger } from '@svc/logging';
import { AlertDeliveryRepository, type AlertDeliveryStore, type DueDelivery } from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { afterFailure } from './delivery-backoff';

/**
 * Works through the outbox of alert deliveries (alert_deliveries, filled with each alert): claims what is due, sends
 * each to its target at most `concurrency` at a time under a deadline, and settles it — delivered, retried after a
 * backoff, or given up. It runs beside the pipeline and never holds it up: raising an alert is one insert, and a dead
 * target only costs this loop its deadline. Several registries share the outbox (SKIP LOCKED, a claim's lease).
 */
@Injectable()
export class AlertDeliveryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly sender: AlertSender;

  constructor(
    @Inject(AlertDeliveryRepository) private readonly deliveries: AlertDeliveryStore,
    @Inject(REGISTRY_CONFIG) private readonly config: Pick<RegistryConfig, 'alertDelivery' | 'nats'>,
    private readonly logger: JsonLogger,
  ) {
    const { timeoutMs, snsEndpoint } = config.alertDelivery;
    this.sender = createAlertSender({ timeoutMs, ...(snsEndpoint !== undefined && { snsEndpoint }) });
  }

  onApplicationBootstrap(): void {
    if (this.config.alertDelivery.enabled) this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
    this.sender.close();
  }

  /** One pass: every delivery due now, in rounds of `concurrency`. */
  async deliverDue(now: () => Date = () => new Date()): Promise<number> {
    const { concurrency, timeoutMs } = this.config.alertDelivery;
    let sent = 0;
    while (!this.stopping) {
      // The lease outlasts an attempt: another registry takes the delivery only if this one died holding it.
      const due = await this.deliveries.claimDue(concurrency, Math.ceil((timeoutMs * 3) / 1000));
      if (due.length === 0) break;
      await Promise.all(due.map((delivery) => this.deliver(delivery, now)));
      sent += due.length;
    }
    return sent;
  }

  private async deliver(delivery: DueDelivery, now: () => Date): Promise<void> {
    const { alert, target } = delivery;
    try {
      await this.sender.send(target.spec, noticeOf(delivery, this.config.nats.installation));
      await this.deliveries.settle(alert.alertId, target.name, { kind: 'delivered', at: now() });
      this.logger.info('alert delivered', { alertId: alert.alertId, target: target.name, attempt: delivery.attempt });
    } catch (error) {
      const failure = error instanceof AlertDeliveryError ? error : new AlertDeliveryError(`unexpected: ${(error as Error).message}`, true);
      const at = now();
      const next = afterFailure(failure, new Date(alert.createdAt), delivery.attempt, at, this.config.alertDelivery);
      if ('retryAt' in next) {
        await this.deliveries.settle(alert.alertId, target.name, { kind: 'retry', error: failure.message, at, nextAttemptAt: next.retryAt });
        this.logger.warn('alert delivery failed; retrying', { alertId: alert.alertId, target: target.name, attempt: delivery.attempt, reason: failure.message, retryAt: next.retryAt.toISOString() });
      } else {
        await this.deliveries.settle(alert.alertId, target.name, { kind: 'failed', error: `${failure.message} (${next.giveUp})`, at });
        this.logger.error('alert delivery given up', { alertId: alert.alertId, target: target.name, attempt: delivery.attempt, reason: failure.message });
      }
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.running = this.deliverDue()
        .catch((error: unknown) => this.logger.warn('alert deliveries could not be read or settled; trying again', { reason: (error as Error).message }))
        .then(() => this.schedule(this.config.alertDelivery.pollMs));
    }, delayMs);
  }
}

function noticeOf(delivery: DueDelivery, installation: string): AlertNotice {
  const { alert } = delivery;
  return {
    deliveryId: `${alert.alertId}/${delivery.target.name}`,
    alertId: alert.alertId,
    replicationId: alert.replicationId,
    ...(delivery.replicationName !== null && { replicationName: delivery.replicationName }),
    kind: alert.kind,
    state: alert.state,
    message: alert.message,
    ...(alert.tableName !== undefined && { tableName: alert.tableName }),
    createdAt: alert.createdAt,
    ...(installation !== '' && { installation }),
    attempt: delivery.attempt,
  };
}
