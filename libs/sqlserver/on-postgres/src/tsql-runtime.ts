import { Pool, type Client, type PoolClient } from 'pg';

/**
 * What SQL Server's statements need of a PostgreSQL database to run translated (tsql-to-postgres.ts), in schema `tsql`:
 *   - SQL Server's types that PostgreSQL has no exact spelling for, as domains the catalog answers read back
 *     (tsql.column_type): bit, and datetime2(n) and datetimeoffset(n) for each scale, so that CONVERT's style 121
 *     writes as many fractional digits as the column's scale ("CAST and CONVERT", date and time styles: 121 is
 *     `yyyy-mm-dd hh:mi:ss.mmm`, with as many digits as the type's fractional seconds precision). PostgreSQL keeps
 *     microseconds: a scale of 7 holds them, and writes the seventh digit as 0. A datetimeoffset is held in UTC
 *     (timestamptz keeps no offset) and written with +00:00, the form SWITCHOFFSET(x, '+00:00') gives it;
 *   - CONVERT by target type (tsql.to_text, tsql.to_binary, tsql.to_datetimeoffset_n…), overloaded on the value's
 *     type as SQL Server's conversion depends on it; + on text; the string functions whose rules differ from
 *     PostgreSQL's (LEN ignores trailing blanks, CHARINDEX's argument order);
 *   - the staging control statements with IF/ELSE and @@ROWCOUNT as functions (staging-statements.ts calls them);
 *   - sp_getapplock as a transaction-scoped advisory lock on the resource's hash.
 * Installed once per database, under an advisory lock, by the pool that first connects to it.
 */
export const TSQL_SCHEMA = 'tsql';

const SCALES = [0, 1, 2, 3, 4, 5, 6, 7] as const;

function temporalDomains(): string {
  return SCALES.map((scale) => {
    const held = Math.min(scale, 6);
    return `CREATE DOMAIN tsql.datetime2_${scale} AS timestamp(${held});
CREATE DOMAIN tsql.datetimeoffset_${scale} AS timestamptz(${held});
CREATE FUNCTION tsql.to_text(value tsql.datetime2_${scale}, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT tsql.style_121(value::timestamp, ${scale}, NULL)
$$;
CREATE FUNCTION tsql.to_text(value tsql.datetimeoffset_${scale}, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT tsql.style_121(value AT TIME ZONE 'UTC', ${scale}, '+00:00')
$$;
CREATE FUNCTION tsql.to_datetime2_${scale}(value text, style int) RETURNS tsql.datetime2_${scale} LANGUAGE sql IMMUTABLE AS $$
  SELECT tsql.parse_instant(value)::timestamp::tsql.datetime2_${scale}
$$;
CREATE FUNCTION tsql.to_datetime2_${scale}(value timestamp, style int) RETURNS tsql.datetime2_${scale} LANGUAGE sql IMMUTABLE AS $$
  SELECT value::tsql.datetime2_${scale}
$$;
CREATE FUNCTION tsql.to_datetime2_${scale}(value timestamptz, style int) RETURNS tsql.datetime2_${scale} LANGUAGE sql IMMUTABLE AS $$
  SELECT (value AT TIME ZONE 'UTC')::tsql.datetime2_${scale}
$$;
CREATE FUNCTION tsql.to_datetimeoffset_${scale}(value text, style int) RETURNS tsql.datetimeoffset_${scale} LANGUAGE sql IMMUTABLE AS $$
  SELECT tsql.parse_instant(value)::tsql.datetimeoffset_${scale}
$$;
`;
  }).join('\n');
}

const RUNTIME_SQL = `
CREATE SCHEMA tsql;

CREATE DOMAIN tsql.bit AS smallint CHECK (VALUE IN (0, 1));

-- What PostgreSQL writes for its part of a style 121 text: yyyy-mm-dd hh:mi:ss, then the fraction to the scale.
CREATE FUNCTION tsql.style_121(value timestamp, scale int, offset_text text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(value, 'YYYY-MM-DD HH24:MI:SS')
    || CASE WHEN scale = 0 THEN '' ELSE '.' || left(rpad(to_char(value, 'US'), 7, '0'), scale) END
    || CASE WHEN offset_text IS NULL THEN '' ELSE ' ' || offset_text END
$$;

-- Text in the forms style 121 and ISO 8601 take, up to seven fractional digits (PostgreSQL keeps six, rounded).
CREATE FUNCTION tsql.parse_instant(value text) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value IS NULL THEN NULL
    WHEN value ~ '([+-]\\d{2}:\\d{2}|Z)\\s*$' THEN value::timestamptz
    ELSE (value::timestamp AT TIME ZONE 'UTC') END
$$;

-- SWITCHOFFSET(x, '+00:00'): the model holds every datetimeoffset in UTC, so the value stays; an offset other than
-- +00:00 is not one it can keep. (Its scale does not stay: a domain passed to anyelement becomes its base type.)
CREATE FUNCTION tsql.switchoffset(value anyelement, offset_text text) RETURNS anyelement LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF offset_text NOT IN ('+00:00', '-00:00', 'Z') THEN
    RAISE EXCEPTION 'the PostgreSQL model of SQL Server holds datetimeoffset in UTC only, not SWITCHOFFSET to %', offset_text;
  END IF;
  RETURN value;
END $$;

${temporalDomains()}

-- CONVERT(varchar(n) | nvarchar(n) | char(n) …, value [, style]).
CREATE FUNCTION tsql.to_text(value text, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value $$;
CREATE FUNCTION tsql.to_text(value bigint, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value::text $$;
CREATE FUNCTION tsql.to_text(value integer, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value::text $$;
CREATE FUNCTION tsql.to_text(value smallint, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value::text $$;
CREATE FUNCTION tsql.to_text(value tsql.bit, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value::smallint::text $$;
CREATE FUNCTION tsql.to_text(value numeric, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value::text $$;
CREATE FUNCTION tsql.to_text(value double precision, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT value::text $$;
-- uniqueidentifier converts to upper-case hex.
CREATE FUNCTION tsql.to_text(value uuid, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(value::text) $$;
CREATE FUNCTION tsql.to_text(value date, style int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT to_char(value, 'YYYY-MM-DD') $$;
-- Binary styles: 1 is 0x and upper-case hex, 2 the hex alone; 0 (the default) would be the bytes as characters.
CREATE FUNCTION tsql.to_text(value bytea, style int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF style = 1 THEN RETURN '0x' || upper(encode(value, 'hex')); END IF;
  IF style = 2 THEN RETURN upper(encode(value, 'hex')); END IF;
  RAISE EXCEPTION 'the PostgreSQL model of SQL Server converts binary to text with style 1 or 2 only, not %', style;
END $$;

-- CONVERT(varbinary(n) | binary(n), value [, style]): from hex text with style 1 (0x…) or 2, from a binary as it is.
CREATE FUNCTION tsql.to_binary(value bytea, style int) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$ SELECT value $$;
CREATE FUNCTION tsql.to_binary(value text, style int) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF value IS NULL THEN RETURN NULL; END IF;
  IF style = 2 THEN RETURN decode(value, 'hex'); END IF;
  IF style = 1 THEN RETURN decode(substr(value, 3), 'hex'); END IF;
  -- A varchar's bytes in a UTF-8 collation (the checksums hash those).
  RETURN convert_to(value, 'UTF8');
END $$;

-- CONVERT(bigint, binary(8)): the bytes big-endian.
CREATE FUNCTION tsql.to_bigint(value bytea, style int) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT ('x' || lpad(encode(value, 'hex'), 16, '0'))::bit(64)::bigint
$$;
CREATE FUNCTION tsql.to_bigint(value anyelement, style int) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT value::text::numeric::bigint $$;
CREATE FUNCTION tsql.to_int(value anyelement, style int) RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT value::text::numeric::integer $$;
CREATE FUNCTION tsql.to_smallint(value anyelement, style int) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$ SELECT value::text::numeric::smallint $$;
CREATE FUNCTION tsql.to_bit(value anyelement, style int) RETURNS tsql.bit LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value IS NULL THEN NULL WHEN lower(value::text) IN ('0', 'false') THEN 0 ELSE 1 END::smallint::tsql.bit
$$;
CREATE FUNCTION tsql.to_uniqueidentifier(value anyelement, style int) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$ SELECT value::text::uuid $$;
CREATE FUNCTION tsql.to_date(value anyelement, style int) RETURNS date LANGUAGE sql IMMUTABLE AS $$ SELECT value::text::date $$;
CREATE FUNCTION tsql.to_float(value anyelement, style int) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$ SELECT value::text::double precision $$;

-- String concatenation with +: text + text (numbers keep PostgreSQL's +, found first in pg_catalog).
CREATE FUNCTION tsql.concat_text(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT a || b $$;
CREATE OPERATOR tsql.+ (LEFTARG = text, RIGHTARG = text, FUNCTION = tsql.concat_text);

-- LEN: characters without the trailing blanks ("LEN excludes trailing spaces").
CREATE FUNCTION tsql.len(value text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT length(rtrim(value, ' ')) $$;
CREATE FUNCTION tsql.charindex(needle text, haystack text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT strpos(haystack, needle) $$;
CREATE FUNCTION tsql.nchar(code integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT chr(code) $$;
-- HASHBYTES of a varchar in a UTF-8 collation: the MD5 of its UTF-8 bytes.
CREATE FUNCTION tsql.hashbytes(algorithm text, value text) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF upper(algorithm) = 'MD5' THEN RETURN decode(md5(convert_to(value, 'UTF8')), 'hex'); END IF;
  IF upper(algorithm) = 'SHA2_256' THEN RETURN sha256(convert_to(value, 'UTF8')); END IF;
  RAISE EXCEPTION 'the PostgreSQL model of SQL Server has no HASHBYTES algorithm %', algorithm;
END $$;
CREATE FUNCTION tsql.hashbytes(algorithm text, value bytea) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF upper(algorithm) = 'MD5' THEN RETURN decode(md5(value), 'hex'); END IF;
  IF upper(algorithm) = 'SHA2_256' THEN RETURN sha256(value); END IF;
  RAISE EXCEPTION 'the PostgreSQL model of SQL Server has no HASHBYTES algorithm %', algorithm;
END $$;
CREATE FUNCTION tsql.dateadd_microseconds(amount bigint, value timestamp) RETURNS timestamp LANGUAGE sql IMMUTABLE AS $$
  SELECT value + amount * interval '1 microsecond'
$$;

-- sp_getapplock @LockOwner = 'Transaction': held until the transaction ends.
CREATE FUNCTION tsql.getapplock(resource text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(resource, 0));
  RETURN 0;
END $$;

-- sp_getapplock @LockMode = 'Shared': held with other shared holders; an exclusive request waits for them all.
CREATE FUNCTION tsql.getapplock_shared(resource text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(resource, 0));
  RETURN 0;
END $$;

-- The staging protocol's statements with IF/ELSE (libs/sqlserver/staging staging-sql.ts), over its control tables.
CREATE FUNCTION tsql.raise_fence(replication text, schema_name text, table_name text, new_epoch bigint) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  UPDATE svc_staging.table_fences SET epoch = new_epoch, raised_at = (clock_timestamp() AT TIME ZONE 'UTC')
  WHERE replication_id = replication AND "schema" = schema_name AND name = table_name AND epoch <= new_epoch;
  IF FOUND THEN RETURN 0; END IF;
  IF EXISTS (SELECT 1 FROM svc_staging.table_fences WHERE replication_id = replication AND "schema" = schema_name AND name = table_name) THEN RETURN 1; END IF;
  INSERT INTO svc_staging.table_fences (replication_id, "schema", name, epoch) VALUES (replication, schema_name, table_name, new_epoch);
  RETURN 0;
END $$;

CREATE FUNCTION tsql.record_batch(batch text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM svc_staging.applied_batches WHERE batch_key = tsql.hashbytes('SHA2_256', batch)) THEN RETURN 0; END IF;
  INSERT INTO svc_staging.applied_batches (batch_key, batch_id) VALUES (tsql.hashbytes('SHA2_256', batch), batch);
  RETURN 1;
END $$;

CREATE FUNCTION tsql.start_seed(replication text, schema_name text, table_name text, seed text, was_truncated boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE svc_staging.table_seeds SET seed_id = seed, started_at = (clock_timestamp() AT TIME ZONE 'UTC'), truncated = was_truncated::int::smallint
  WHERE replication_id = replication AND "schema" = schema_name AND name = table_name;
  IF NOT FOUND THEN
    INSERT INTO svc_staging.table_seeds (replication_id, "schema", name, seed_id, truncated) VALUES (replication, schema_name, table_name, seed, was_truncated::int::smallint);
  END IF;
END $$;

-- THROW number, message, state when a batch's guard finds a value too long.
CREATE FUNCTION tsql.throw_if(condition boolean, error_number integer, message text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF condition THEN RAISE EXCEPTION 'SQL Server error %: %', error_number, message USING ERRCODE = 'P0001'; END IF;
END $$;

-- The column's type as sys.columns and sys.types describe it (TYPE_NAME, max_length in bytes, precision, scale).
CREATE FUNCTION tsql.column_type(type_oid oid, type_modifier integer,
  OUT type_name text, OUT max_length integer, OUT "precision" integer, OUT scale integer) LANGUAGE plpgsql STABLE AS $$
DECLARE
  -- The runtime's domains by their qualified name, whatever the search path.
  name text := (SELECT n.nspname || '.' || t.typname FROM pg_type AS t JOIN pg_namespace AS n ON n.oid = t.typnamespace WHERE t.oid = type_oid);
BEGIN
  IF name LIKE 'tsql.datetime2\\_%' THEN
    type_name := 'datetime2'; max_length := 8; "precision" := 27; scale := substr(name, 16)::int;
  ELSIF name LIKE 'tsql.datetimeoffset\\_%' THEN
    type_name := 'datetimeoffset'; max_length := 10; "precision" := 34; scale := substr(name, 21)::int;
  ELSIF name = 'tsql.bit' THEN type_name := 'bit'; max_length := 1; "precision" := 1; scale := 0;
  ELSIF type_oid = 'int2'::regtype THEN type_name := 'smallint'; max_length := 2; "precision" := 5; scale := 0;
  ELSIF type_oid = 'int4'::regtype THEN type_name := 'int'; max_length := 4; "precision" := 10; scale := 0;
  ELSIF type_oid = 'int8'::regtype THEN type_name := 'bigint'; max_length := 8; "precision" := 19; scale := 0;
  ELSIF type_oid = 'float8'::regtype THEN type_name := 'float'; max_length := 8; "precision" := 53; scale := 0;
  ELSIF type_oid = 'numeric'::regtype AND type_modifier >= 4 THEN
    type_name := 'decimal'; max_length := 17; "precision" := ((type_modifier - 4) >> 16) & 65535; scale := (type_modifier - 4) & 65535;
  ELSIF type_oid = 'varchar'::regtype THEN
    type_name := 'nvarchar'; max_length := CASE WHEN type_modifier >= 4 THEN 2 * (type_modifier - 4) ELSE -1 END; "precision" := 0; scale := 0;
  ELSIF type_oid = 'text'::regtype THEN type_name := 'nvarchar'; max_length := -1; "precision" := 0; scale := 0;
  ELSIF type_oid = 'bpchar'::regtype THEN type_name := 'nchar'; max_length := 2 * (type_modifier - 4); "precision" := 0; scale := 0;
  ELSIF type_oid = 'bytea'::regtype THEN type_name := 'varbinary'; max_length := -1; "precision" := 0; scale := 0;
  ELSIF type_oid = 'uuid'::regtype THEN type_name := 'uniqueidentifier'; max_length := 16; "precision" := 0; scale := 0;
  ELSIF type_oid = 'date'::regtype THEN type_name := 'date'; max_length := 3; "precision" := 10; scale := 0;
  ELSE type_name := 'not a type of the model: ' || format_type(type_oid, type_modifier); max_length := -1; "precision" := 0; scale := 0;
  END IF;
END $$;

-- OBJECT_ID(QUOTENAME(@schema) + N'.' + QUOTENAME(@name), N'U'): the table's oid, NULL when there is none.
CREATE FUNCTION tsql.table_oid(schema_name text, table_name text) RETURNS oid LANGUAGE sql STABLE AS $$
  SELECT c.oid FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
  WHERE n.nspname = schema_name AND c.relname = table_name AND c.relkind IN ('r', 'p')
$$;
`;

/** The model's type for a SQL Server type as DDL spells it (`nvarchar(max)`, `datetimeoffset(6)`); null for one it does not have. */
export function postgresTypeOf(sqlServerType: string): string | null {
  const match = /^([a-z0-9_]+)(?:\(\s*(max|\d+)(?:\s*,\s*(\d+))?\s*\))?$/i.exec(sqlServerType.trim());
  if (!match) return null;
  const [, base = '', size, scale] = match;
  const name = base.toLowerCase();
  switch (name) {
    case 'bit':
      return 'tsql.bit';
    case 'tinyint':
    case 'smallint':
      return 'smallint';
    case 'int':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'float':
      return 'double precision';
    case 'decimal':
    case 'numeric':
      return `numeric(${size ?? 18},${scale ?? 0})`;
    case 'nvarchar':
    case 'varchar':
    case 'sysname':
      return size === undefined || size.toLowerCase() === 'max' ? (name === 'sysname' ? 'varchar(128)' : 'text') : `varchar(${size})`;
    case 'nchar':
    case 'char':
      return `char(${size ?? 1})`;
    case 'varbinary':
    case 'binary':
      return 'bytea';
    case 'uniqueidentifier':
      return 'uuid';
    case 'date':
      return 'date';
    case 'datetime2':
      return `tsql.datetime2_${size ?? 7}`;
    case 'datetimeoffset':
      return `tsql.datetimeoffset_${size ?? 7}`;
    case 'datetime':
      return 'tsql.datetime2_3';
    default:
      return null;
  }
}

/** The advisory lock under which the runtime is installed (an arbitrary constant of the model). */
const INSTALL_LOCK = 7_230_520;

/** Installs the runtime in the database once (concurrent first connections wait for the first install). */
export async function installTsqlRuntime(database: Pool | PoolClient | Client): Promise<void> {
  const client = database instanceof Pool ? await database.connect() : database;
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [INSTALL_LOCK]);
      const present = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'tsql'");
      if (present.rows.length === 0) await client.query(RUNTIME_SQL);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    if (database instanceof Pool) (client as PoolClient).release();
  }
}
