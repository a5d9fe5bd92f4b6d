import type { ClientBase } from 'pg';
import { CopyFailedError, loadErrorDetail, loadErrorFilePattern, s3CopyLoader } from './file-loaders';

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
  it('says line, column, type, code and the reason, never the value Redshift quotes after it', () => {
    // Redshift's load errors name the rejected value ("Invalid digit, Value 'O', Pos 0, Type: Integer",
    // https://docs.aws.amazon.com/redshift/latest/dg/r_Load_Error_Reference.html): a row's values must not reach lastError.
    const detail = loadErrorDetail([{ line_number: 17, column_name: 'price', column_type: 'numeric', error_code: 1207, error_message: "Invalid digit, Value 'secret-ish', Pos 0, Type: Decimal" }]);
    expect(detail).toBe('; sys_load_error_detail: line 17, column price (numeric): error 1207 Invalid digit');
    expect(loadErrorDetail([])).toBe('');
  });
});

describe('loadErrorFilePattern', () => {
  it("takes LIKE's wildcards and escape character in a folder name literally", () => {
    expect(loadErrorFilePattern('s3://bucket/rep_1/100%/a\\b/')).toBe('s3://bucket/rep\\_1/100\\%/a\\\\b/%');
  });
});
