/** A place in the binary log: a file of the server's log and the byte offset of an event in it. */
export interface BinlogPosition {
  file: string;
  position: number;
}

const OFFSET_BITS = 32n;

/** The sequence number of a binary-log file (`binlog.000042` is 42). */
export function fileSequence(file: string): number {
  const match = /\.(\d+)$/.exec(file);
  if (match === null) throw new RangeError(`${JSON.stringify(file)} is not a binary-log file name (name.NNNNNN)`);
  return Number(match[1]);
}

/**
 * A position as the pipeline's version: one decimal integer (file sequence × 2^32 + offset), so that versions of one
 * server order as its log does and compare as numbers wherever the pipeline compares them. The file's base name
 * is not in it: it is part of the source's incarnation (incarnation.ts).
 */
export function versionOf(position: BinlogPosition): string {
  // An offset of 2^32 or more would carry into the file sequence and name a place in a later file.
  if (!Number.isSafeInteger(position.position) || position.position < 0 || position.position >= 2 ** Number(OFFSET_BITS)) {
    throw new RangeError(`${position.position} is not a binary-log offset (0 to 2^32 - 1)`);
  }
  return ((BigInt(fileSequence(position.file)) << OFFSET_BITS) + BigInt(position.position)).toString();
}

/** The position a version names, given the base name of the server's files (`binlog`). */
export function positionOf(version: string, baseName: string): BinlogPosition {
  if (!/^\d+$/.test(version)) throw new RangeError(`${JSON.stringify(version)} is not a binary-log version`);
  const value = BigInt(version);
  const sequence = value >> OFFSET_BITS;
  return { file: `${baseName}.${String(sequence).padStart(6, '0')}`, position: Number(value & ((1n << OFFSET_BITS) - 1n)) };
}

export function comparePositions(left: BinlogPosition, right: BinlogPosition): number {
  return fileSequence(left.file) - fileSequence(right.file) || left.position - right.position;
}

/** `binlog` of `binlog.000042`. */
export function baseNameOf(file: string): string {
  return file.replace(/\.\d+$/, '');
}
