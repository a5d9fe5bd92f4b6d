import { redshiftManifest } from './redshift-manifest';

describe('redshiftManifest', () => {
  it('lists every part as a mandatory s3:// url with its stored size', () => {
    expect(
      redshiftManifest('bucket', [
        { key: 'f/r/public.t/b1/part-00000.csv.gz', contentLength: 20 },
        { key: 'f/r/public.t/b1/part-00001.csv.gz', contentLength: 1234 },
      ]),
    ).toEqual({
      entries: [
        { url: 's3://bucket/f/r/public.t/b1/part-00000.csv.gz', mandatory: true, meta: { content_length: 20 } },
        { url: 's3://bucket/f/r/public.t/b1/part-00001.csv.gz', mandatory: true, meta: { content_length: 1234 } },
      ],
    });
  });
});
