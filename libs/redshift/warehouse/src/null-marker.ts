/**
 * How the files for Redshift write NULL: Redshift's CSV COPY reads an empty field as '' for VARCHAR, so NULL
 * needs a marker of its own (`COPY … NULL AS '\N'`). A value that is exactly this marker is refused (redshift-file-rows.ts).
 */
export const REDSHIFT_NULL_MARKER = '\\N';
