import { ErrorCode, type ValidationDescription } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import type { NewValidationTable, StoredTableStatus } from '@svc/registry-store';
import { ValidationService } from './validation.service';
import { ValidationWake } from './validation-wake';

const REPLICATION = '5f0c7a4e-0000-4000-8000-000000000001';
const caller = { requestId: 'req-1', accessKeyId: 'AK', scope: 'All' as const };

function table(name: string, phase: StoredTableStatus['phase']): StoredTableStatus {
  return { name, phase, rowsSeeded: 10, rowsEstimated: 10, lastVersion: '100', lagSeconds: 0, ctTimeoutLevel: 0 } as StoredTableStatus;
}

function service(tables: StoredTableStatus[], stored: ValidationDescription | null = null) {
  const created: Array<{ validationId: string; tables: readonly NewValidationTable[] }> = [];
  const repairs: string[][] = [];
  const wake = new ValidationWake();
  let woken = 0;
  wake.listen(() => (woken += 1));
  const validations = {
    create: async (validationId: string, _replicationId: string, entries: readonly NewValidationTable[]) => void created.push({ validationId, tables: entries }),
    createScheduled: async (validationId: string, _replicationId: string, entries: readonly NewValidationTable[]) => (created.push({ validationId, tables: entries }), true),
    startRevalidations: async () => [],
    describe: async () => stored,
    requestRepair: async (_validationId: string, names: readonly string[]) => {
      repairs.push([...names]);
      return [...names];
    },
  };
  const subject = new ValidationService(
    { get: async (id: string) => (id === REPLICATION ? ({ replicationId: id } as never) : null) },
    { listByReplication: async () => tables },
    validations,
    wake,
    new JsonLogger('job-registry', 'error', () => undefined),
  );
  return { subject, created, repairs, woken: () => woken };
}

describe('ValidationService', () => {
  it('starts a validation of every table: a Tracking or Untracked one Pending, a table still seeding Skipped with why', async () => {
    const { subject, created, woken } = service([table('[public].[items]', 'Tracking'), table('[public].[log]', 'Untracked'), table('[public].[new]', 'Seeding')]);
    const reply = await subject.start({ replicationId: REPLICATION }, caller);
    expect(reply.ok).toBe(true);
    expect(created[0]?.tables).toEqual([
      { tableName: '[public].[items]', state: 'Pending', reason: null },
      { tableName: '[public].[log]', state: 'Pending', reason: null },
      { tableName: '[public].[new]', state: 'Skipped', reason: 'its phase is Seeding: a table is compared once its seed has completed' },
    ]);
    expect(reply.ok && reply.value.validationId).toBe(created[0]?.validationId);
    expect(woken()).toBe(1);
  });

  it('takes the tables TablesToInclude names, in any spelling of the same name', async () => {
    const { subject, created } = service([table('[public].[items]', 'Tracking'), table('[public].[log]', 'Untracked')]);
    await subject.start({ replicationId: REPLICATION, tablesToInclude: ['[public].[items]', '[public].[items]'] }, caller);
    expect(created[0]?.tables.map((entry) => entry.tableName)).toEqual(['[public].[items]']);
  });

  it('refuses a table the replication does not have, naming the field, and stores nothing', async () => {
    const { subject, created } = service([table('[public].[items]', 'Tracking')]);
    const reply = await subject.start({ replicationId: REPLICATION, tablesToInclude: ['[public].[nope]'] }, caller);
    expect(reply).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: [`{TablesToInclude}: table '[public].[nope]' is not part of replication '${REPLICATION}'`] } });
    expect(created).toEqual([]);
  });

  it('answers NotFound for an unknown replication, and for an unknown ValidationId naming the field', async () => {
    const { subject } = service([table('[public].[items]', 'Tracking')]);
    expect((await subject.start({ replicationId: '5f0c7a4e-0000-4000-8000-000000000009' }, caller)).ok).toBe(false);
    const reply = await subject.describe({ replicationId: REPLICATION, validationId: '5f0c7a4e-0000-4000-8000-00000000000a' });
    expect(reply.ok ? null : reply.error.messages).toEqual([`{ValidationId}: replication '${REPLICATION}' has no validation '5f0c7a4e-0000-4000-8000-00000000000a'`]);
  });

  describe('repair', () => {
    const VALIDATION = '5f0c7a4e-0000-4000-8000-0000000000aa';
    const stored = (states: Array<[string, string]>): ValidationDescription => ({
      replicationId: REPLICATION,
      validationId: VALIDATION,
      requestedAt: '2026-11-27T10:00:00.000Z',
      scheduled: false,
      tables: states.map(([name, state]) => ({ name, state }) as ValidationDescription['tables'][number]),
    });

    it('queues every Mismatched table of the validation', async () => {
      const { subject, repairs, woken } = service([], stored([['[public].[a]', 'Mismatched'], ['[public].[b]', 'Validated'], ['[public].[c]', 'Mismatched']]));
      expect(await subject.repair({ replicationId: REPLICATION, validationId: VALIDATION }, caller)).toEqual({
        ok: true,
        value: { replicationId: REPLICATION, validationId: VALIDATION, tables: ['[public].[a]', '[public].[c]'] },
      });
      expect(repairs).toEqual([['[public].[a]', '[public].[c]']]);
      expect(woken()).toBe(1);
    });

    it('refuses, by field, a table that did not mismatch, one the validation lacks, and a validation with nothing to repair', async () => {
      const { subject, repairs } = service([], stored([['[public].[a]', 'Validated']]));
      const messages = async (request: Parameters<ValidationService['repair']>[0]) => {
        const reply = await subject.repair(request, caller);
        return reply.ok ? null : reply.error.messages;
      };
      expect(await messages({ replicationId: REPLICATION, validationId: VALIDATION, tablesToInclude: ['[public].[a]'] })).toEqual([
        "{TablesToInclude}: table '[public].[a]' is Validated: only a Mismatched table is repaired",
      ]);
      expect(await messages({ replicationId: REPLICATION, validationId: VALIDATION, tablesToInclude: ['[public].[z]'] })).toEqual([
        `{TablesToInclude}: table '[public].[z]' is not part of validation '${VALIDATION}'`,
      ]);
      expect(await messages({ replicationId: REPLICATION, validationId: VALIDATION })).toEqual([`{ValidationId}: validation '${VALIDATION}' found no Mismatched table to repair`]);
      expect(repairs).toEqual([]);
    });
  });
});
