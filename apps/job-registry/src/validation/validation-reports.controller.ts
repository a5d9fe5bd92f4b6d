import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type RpcReply, type ValidationReportReply } from '@svc/contracts';
import { ValidationReportsService } from './validation-reports.service';

@Controller()
export class ValidationReportsController {
  constructor(private readonly reports: ValidationReportsService) {}

  @MessagePattern(Subjects.registryValidationReport)
  report(@Payload() message: unknown): Promise<RpcReply<ValidationReportReply>> {
    return this.reports.report(message);
  }
}
