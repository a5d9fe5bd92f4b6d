import { MAX_WORK_GROUP_MEMBERS } from '@svc/contracts';
import { RetryableWorkError, TerminalWorkError, WorkAbortedError } from '@svc/messaging';
import { eachAtMost, groupMessageId, groupsOf, newestConfigVersion, runEachAlone } from './work-groups';

describe('groupsOf', () => {
  it('keeps members in order, in groups of at most MAX_WORK_GROUP_MEMBERS', () => {
    const members = Array.from({ length: MAX_WORK_GROUP_MEMBERS * 2 + 1 }, (_, index) => index);
    expect(groupsOf(members).map((group) => group.length)).toEqual([MAX_WORK_GROUP_MEMBERS, MAX_WORK_GROUP_MEMBERS, 1]);
    expect(groupsOf(members).flat()).toEqual(members);
  });

  it('starts another group before the JSON would pass the byte limit; a member over it alone is a group of its own', () => {
    const member = (size: number) => 'x'.repeat(size);
    expect(groupsOf([member(40), member(40), member(40)], 100).map((group) => group.length)).toEqual([2, 1]);
    expect(groupsOf([member(10), member(500), member(10)], 100).map((group) => group.length)).toEqual([1, 1, 1]);
    expect(groupsOf([])).toEqual([]);
  });
});

describe('group message ids', () => {
  const member = (workId: string, epoch: number) => ({ workId, batch: { batchId: `b-${workId}`, epoch } });

  it('are the same for the same members and differ when any member, or its epoch, differs', () => {
    const id = groupMessageId('staged', [member('w1', 1), member('w2', 1)]);
    expect(groupMessageId('staged', [member('w1', 1), member('w2', 1)])).toBe(id);
    expect(groupMessageId('staged', [member('w1', 1), member('w2', 2)])).not.toBe(id);
    expect(groupMessageId('extracted', [member('w1', 1), member('w2', 1)])).not.toBe(id);
  });
});

describe('newestConfigVersion', () => {
  it('is the highest version a member names, or none', () => {
    expect(newestConfigVersion([{ batch: { configVersion: 2 } }, { batch: {} }, { batch: { configVersion: 5 } }])).toBe(5);
    expect(newestConfigVersion([{ batch: {} }])).toBeUndefined();
  });
});

describe('eachAtMost', () => {
  it('runs at most the given number at once and answers in the items\' order', async () => {
    let running = 0;
    let most = 0;
    const results = await eachAtMost([5, 1, 4, 2, 3, 0], 2, async (delay) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((done) => setTimeout(done, delay * 5));
      running -= 1;
      return delay * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
    expect(await eachAtMost([], 8, async () => 1)).toEqual([]);
  });
});

describe('runEachAlone', () => {
  it('runs every member, reports a retryable failure and goes on, and leaves a terminal one (reported by the run) alone', async () => {
    const ran: string[] = [];
    const retryable: string[] = [];
    await runEachAlone(
      ['ok', 'retry', 'terminal', 'last'],
      async (member) => {
        ran.push(member);
        if (member === 'retry') throw new RetryableWorkError('deadlock');
        if (member === 'terminal') throw new TerminalWorkError('no such column');
      },
      async (member, failure) => {
        retryable.push(`${member}: ${failure.message}`);
      },
    );
    expect(ran).toEqual(['ok', 'retry', 'terminal', 'last']);
    expect(retryable).toEqual(['retry: deadlock']);
  });

  it('ends at a stop or an unclassified error, so that the whole group is delivered again', async () => {
    const ran: string[] = [];
    const run = (thrown: Error) => runEachAlone(['a', 'b'], async (member) => {
      ran.push(member);
      throw thrown;
    }, async () => undefined);
    await expect(run(new WorkAbortedError('stopping'))).rejects.toBeInstanceOf(WorkAbortedError);
    await expect(run(new Error('bug'))).rejects.toThrow('bug');
    expect(ran).toEqual(['a', 'a']);
  });
});
