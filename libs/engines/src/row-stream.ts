import type { RowStream } from './capabilities';

/**
 * Gives back the connection of a read whose rows will not be read (its work failed before, say while publishing):
 * its row stream is destroyed, which rolls its transaction back and releases its connection (every engine's rows
 * are a Node stream; an async iterator is ended instead). Left alone, it would hold a connection of its pool for good.
 * Its `finished` then rejects, handled by the engine.
 */
export function abandonRowStream(read: RowStream): void {
  const rows = read.rows as RowStream['rows'] & { destroy?: () => void };
  if (typeof rows.destroy === 'function') rows.destroy();
  else void rows[Symbol.asyncIterator]().return?.();
}
