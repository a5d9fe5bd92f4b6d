/** A stored part and its size in the bucket (compressed). */
export interface StoredPart {
  key: string;
  contentLength: number;
}

/** Redshift's COPY manifest format; `meta.content_length` is the object's size in bytes. */
export interface RedshiftManifest {
  entries: { url: string; mandatory: boolean; meta: { content_length: number } }[];
}

export function redshiftManifest(bucket: string, parts: readonly StoredPart[]): RedshiftManifest {
  return {
    entries: parts.map((part) => ({ url: `s3://${bucket}/${part.key}`, mandatory: true, meta: { content_length: part.contentLength } })),
  };
}
