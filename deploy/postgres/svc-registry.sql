-- The control database's own owner: the job-registry connects as this role, never as the superuser.
-- Run by docker-compose.yml's one-shot postgres-init job, as the superuser, on every `up` (each step is idempotent):
--   psql -v ON_ERROR_STOP=1 -v role=svc_registry -v database=svc_registry -v password=... -f svc-registry.sql
-- It makes the role (LOGIN, NOSUPERUSER, NOCREATEDB, NOCREATEROLE, NOREPLICATION, NOBYPASSRLS) and sets its password,
-- makes the database owned by it, and hands it the tables a superuser-run registry created in that database before
-- (compose volumes from before this role existed). psql does not expand :variables in dollar-quoted bodies, hence
-- format(...) \gexec rather than DO blocks.

SELECT format('CREATE ROLE %I LOGIN', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role')
\gexec

ALTER ROLE :"role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'password';

SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'role')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'database')
\gexec

ALTER DATABASE :"database" OWNER TO :"role";

\connect :"database"

-- Tables (with their indexes and owned sequences) in the public schema that another role created.
SELECT format('ALTER TABLE %I.%I OWNER TO %I', n.nspname, c.relname, :'role')
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public'
  AND c.relkind IN ('r', 'p')
  AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = :'role')
\gexec
