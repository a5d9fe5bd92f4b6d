import { Global, Module } from '@nestjs/common';
import { ValidationOperations } from '../replications/validation-operations';
import { ValidationDispatcher } from './validation-dispatcher.service';
import { ValidationReportsController } from './validation-reports.controller';
import { ValidationReportsService } from './validation-reports.service';
import { ValidationScheduler } from './validation-scheduler.service';
import { ValidationService } from './validation.service';
import { ValidationWake } from './validation-wake';

/** Validation: the operations, the schedules, the dispatch of tables to extractors, and what the extractors report. */
@Global()
@Module({
  controllers: [ValidationReportsController],
  providers: [ValidationWake, ValidationService, { provide: ValidationOperations, useExisting: ValidationService }, ValidationDispatcher, ValidationReportsService, ValidationScheduler],
  exports: [ValidationOperations],
})
export class ValidationModule {}
