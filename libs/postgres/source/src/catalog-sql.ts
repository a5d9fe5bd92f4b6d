import { POSTGRES_USER_TABLES_FILTER } from '@svc/postgres/common';
import { CHANGE_COLUMNS } from './identifiers';

/**
 * Every user table with its columns and primary key; $1/$2 (schema, name) narrow it to one table, or
 * are both null for all of them. Partitions are left out (their rows are read through the partitioned
 * table), so are temporary tables.
 *
 * portable_type: a type from pg_catalog keeps its text; a domain is followed down to its base type; an
 * array is judged by its element; whatever is still user-defined (enum, composite, extension type)
 * travels as text, so staging and warehouse need not know it. The text is not trusted for all that: the
 * mapping (portableTypeOfPostgres) declares only built-in types again. format_type is named with its
 * schema, and source sessions search pg_catalog alone (SOURCE_SESSION_OPTIONS).
 */
export const DISCOVER_TABLES_SQL = `with recursive domain_chain as (
  select t.oid as domain_oid, t.typbasetype as base_oid, t.typtypmod as base_typmod
  from pg_type t
  where t.typtype = 'd'
  union all
  select chain.domain_oid, t.typbasetype, t.typtypmod
  from domain_chain chain
  join pg_type t on t.oid = chain.base_oid and t.typtype = 'd'
),
domain_base as (
  select chain.domain_oid, chain.base_oid, chain.base_typmod
  from domain_chain chain
  join pg_type t on t.oid = chain.base_oid and t.typtype <> 'd'
),
column_types as (
  select
    a.attrelid,
    a.attnum,
    a.attname::text as name,
    pg_catalog.format_type(a.atttypid, a.atttypmod) as source_type,
    not a.attnotnull as nullable,
    a.atthasdef or a.attidentity <> '' or a.attgenerated <> '' as has_default,
    case
      when col_type.typnamespace = 'pg_catalog'::regnamespace then pg_catalog.format_type(a.atttypid, a.atttypmod)
      when base_type.typcategory = 'A' and base_type.typelem <> 0 then
        case when element_type.typnamespace = 'pg_catalog'::regnamespace
          then pg_catalog.format_type(element_type.oid, coalesce(element_domain.base_typmod, base.typmod)) || '[]'
          else 'text[]'
        end
      when base_type.typnamespace = 'pg_catalog'::regnamespace then pg_catalog.format_type(base_type.oid, base.typmod)
      else 'text'
    end as portable_type
  from pg_attribute a
  join pg_type col_type on col_type.oid = a.atttypid
  left join domain_base col_domain on col_domain.domain_oid = a.atttypid
  cross join lateral (
    select coalesce(col_domain.base_oid, a.atttypid) as oid, coalesce(col_domain.base_typmod, a.atttypmod) as typmod
  ) base
  join pg_type base_type on base_type.oid = base.oid
  left join domain_base element_domain on element_domain.domain_oid = base_type.typelem
  left join pg_type element_type on element_type.oid = coalesce(element_domain.base_oid, base_type.typelem)
  where a.attnum > 0 and not a.attisdropped
)
select
  n.nspname::text as schema,
  c.relname::text as name,
  greatest(c.reltuples, 0)::float8 as estimated_rows,
  coalesce(pk.columns, '{}') as primary_key,
  cols.columns
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
left join lateral (
  select array_agg(a.attname::text order by k.position) as columns
  from pg_index i
  cross join unnest(i.indkey) with ordinality as k(attnum, position)
  join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
  where i.indrelid = c.oid and i.indisprimary
) pk on true
cross join lateral (
  select coalesce(json_agg(json_strip_nulls(json_build_object(
    'name', col.name,
    'sourceType', col.source_type,
    'portableType', col.portable_type,
    'nullable', col.nullable,
    'hasDefault', nullif(col.has_default, false)
  )) order by col.attnum), '[]') as columns
  from column_types col
  where col.attrelid = c.oid
) cols
where ${POSTGRES_USER_TABLES_FILTER}
  and ($1::text is null or (n.nspname = $1 and c.relname = $2))
order by n.nspname, c.relname`;

/** The primary-key columns of one table ($1: its quoted qualified name) in key order, with their types. */
export const PRIMARY_KEY_COLUMNS_SQL = `select a.attname::text as name, pg_catalog.format_type(a.atttypid, a.atttypmod) as type
from pg_index i
cross join unnest(i.indkey) with ordinality as k(attnum, position)
join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
where i.indrelid = to_regclass($1) and i.indisprimary
order by k.position`;

/** The key columns of a change table ($1: its quoted qualified name): all but the svc_ columns. Empty when it does not exist. */
export const CHANGE_TABLE_KEY_COLUMNS_SQL = `select a.attname::text as name, pg_catalog.format_type(a.atttypid, a.atttypmod) as type
from pg_attribute a
where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped
  and a.attname not in (${CHANGE_COLUMNS.map((column) => `'${column}'`).join(', ')})
order by a.attnum`;
