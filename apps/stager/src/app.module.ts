import { Module } from '@nestjs/common';
import { createHealthController } from '@svc/messaging-nest';

/** Joins NATS and answers its health subject; the data work arrives with the pipeline. */
@Module({ controllers: [createHealthController('stager')] })
export class AppModule {}
