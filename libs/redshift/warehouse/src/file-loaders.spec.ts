import type { ClientBase } from 'pg';
import { CopyFailedError, loadErrorDetail, s3CopyLoader } from './file-loaders';

/** A session that refuses every COPY with the text Redshift would, quoting the statement. */
function refusingSession(sent: string[]): ClientBase {
  return {
    query: (text: string) => {
      sent.push(text);
      return Promise.reject(Object.assign(new Error(`S3ServiceException:Access Denied while running ${text}`), { code: 'XX000' }));
    },
  } as unknown as ClientBase;
}

describe('s3CopyLoader', () => {
  it('sends COPY with the credentials and fails with them redacted, keeping the SQLSTATE', async () => {
    const sent: string[] = [];
    const loader = s3CopyLoader({ accessType: 'AccessKey', accessKeyId: 'AKIAEXAMPLE0000001', secretAccessKey: 'very/secret+key' }, 'eu-west-1');
    const failure = await loader
      .load(refusingSession(sent), '"svc_sys_load_rows"', ['svc_op', 'id'], { bucket: 'b', manifestKey: 'f/manifest.json', partKeys: [] }, { readPart: () => Promise.reject(new Error('COPY reads S3 itself')) })
      .catch((error: unknown) => error);
    expect(sent[0]).toContain("SECRET_ACCESS_KEY 'very/secret+key'");
    expect(failure).toBeInstanceOf(CopyFailedError);
    expect((failure as CopyFailedError).message).not.toMatch(/very\/secret|AKIAEXAMPLE/);
    expect((failure as { code?: string }).code).toBe('XX000');
  });
});

describe('loadErrorDetail', () => {
  it('says line, column, reason and the value cut short', () => {
    expect(
      loadErrorDetail([{ column_name: 'note', reason: 'String length exceeds DDL length', line_number: 17, raw_value: 'x'.repeat(150) }]),
    ).toBe(`; stl_load_errors: line 17, column note: String length exceeds DDL length (value "${'x'.repeat(100)}")`);
    expect(loadErrorDetail([])).toBe('');
  });
});
