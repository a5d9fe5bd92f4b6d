import { PipelineStreams, PipelineSubjects, Subjects } from './subjects';

/** NATS subject matching: `*` is one token, a trailing `>` one or more. */
function matches(filter: string, subject: string): boolean {
  const filterTokens = filter.split('.');
  const subjectTokens = subject.split('.');
  for (let index = 0; index < filterTokens.length; index++) {
    const token = filterTokens[index];
    if (token === '>') return subjectTokens.length > index;
    if (index >= subjectTokens.length || (token !== '*' && token !== subjectTokens[index])) return false;
  }
  return filterTokens.length === subjectTokens.length;
}

function capturedByWorkStream(subject: string): boolean {
  return PipelineStreams.work.subjects.some((filter) => matches(filter, subject));
}

describe('pipeline subjects and streams', () => {
  const jetStreamSubjects = Object.entries(PipelineSubjects).filter(([name]) => name !== 'rowsPrefix');

  it.each(jetStreamSubjects)('the work stream stores %s', (_name, subject) => {
    expect(capturedByWorkStream(subject)).toBe(true);
  });

  it('the work stream leaves out the core-NATS cancellation broadcast (nobody would ever take it out of the work queue)', () => {
    expect(capturedByWorkStream(Subjects.workCancelled)).toBe(false);
  });

  it('the work stream leaves out the core-NATS progress heartbeats too', () => {
    expect(capturedByWorkStream(Subjects.workProgress)).toBe(false);
  });

  it('the matcher itself', () => {
    expect(matches('a.b.>', 'a.b.c.d')).toBe(true);
    expect(matches('a.b.>', 'a.b')).toBe(false);
    expect(matches('a.*.c', 'a.b.c')).toBe(true);
    expect(matches('a.b.c', 'a.b.c.d')).toBe(false);
  });
});
