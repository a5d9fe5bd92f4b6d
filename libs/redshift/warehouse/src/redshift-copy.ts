import { iamRoleArn } from '@svc/contracts';
import { quoteIdent, quoteLiteral } from './redshift-identifiers';
import { REDSHIFT_NULL_MARKER } from './null-marker';

/** How COPY is authorised to read the bucket: Warehouse.AccessType and its fields. */
export type CopyAuthorization =
  | { accessType: 'AccessKey'; accessKeyId: string; secretAccessKey: string }
  | { accessType: 'IAMRole'; accountId: string; roleName: string };

export interface CopySource {
  bucket: string;
  manifestKey: string;
  /** Warehouse.RegionEndpoint: the bucket's region. */
  region: string;
}

/** A COPY statement, and the same text with its credentials replaced, the only form that may be logged or quoted. */
export interface CopyStatement {
  text: string;
  redacted: string;
}

const REDACTED = "'***'";

/**
 * COPY of a batch's files into `table` (the load table or a seed shadow): the manifest names every part, the
 * parts are gzip CSV as redshift-file-rows.ts writes them (NULL as the unquoted marker, every other value quoted),
 * timestamps in ISO form with or without an offset. COMPUPDATE and STATUPDATE are off: the table is a
 * temporary one or a shadow that is merged at once, and their analysis would cost more than the load.
 */
export function copySql(table: string, columns: readonly string[], source: CopySource, authorization: CopyAuthorization): CopyStatement {
  const from = `s3://${source.bucket}/${source.manifestKey}`;
  const head = `COPY ${table} (${columns.map(quoteIdent).join(', ')})
FROM ${quoteLiteral(from)}`;
  const tail = `MANIFEST
FORMAT AS CSV
GZIP
NULL AS ${quoteLiteral(REDSHIFT_NULL_MARKER)}
REGION ${quoteLiteral(source.region)}
TIMEFORMAT 'auto'
DATEFORMAT 'auto'
COMPUPDATE OFF
STATUPDATE OFF`;
  return {
    text: `${head}\n${credentials(authorization, source.region, false)}\n${tail}`,
    redacted: `${head}\n${credentials(authorization, source.region, true)}\n${tail}`,
  };
}

function credentials(authorization: CopyAuthorization, region: string, redacted: boolean): string {
  switch (authorization.accessType) {
    case 'AccessKey':
      return redacted ? `ACCESS_KEY_ID ${REDACTED} SECRET_ACCESS_KEY ${REDACTED}` : `ACCESS_KEY_ID ${quoteLiteral(authorization.accessKeyId)} SECRET_ACCESS_KEY ${quoteLiteral(authorization.secretAccessKey)}`;
    case 'IAMRole':
      // A role ARN is no secret: it names the role the cluster assumes, which the account's owner controls. Its
      // partition is the bucket region's (arn:aws-cn: in China, arn:aws-us-gov: in GovCloud).
      return `IAM_ROLE ${quoteLiteral(iamRoleArn(authorization, region))}`;
  }
}
