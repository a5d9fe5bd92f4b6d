import { Module } from '@nestjs/common';
import { AlertDeliveryService } from './alert-delivery.service';
import { AlertTargetOperations } from './alert-target-operations.service';

/** Alert targets (the API) and the delivery of every alert to them. */
@Module({
  providers: [AlertTargetOperations, AlertDeliveryService],
  exports: [AlertTargetOperations],
})
export class AlertsModule {}
