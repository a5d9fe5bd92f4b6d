import { parseServerUrl } from '@svc/engines';
import { postgresClientConfig } from '@svc/postgres/common';
import { parseAdoConnectionString, sqlServerConfig } from '@svc/sqlserver/common';
import type { SeededRandom } from './seeded-random';

/** A connection string (or a text quoting one) and its password as the user wrote it in there. */
export interface BuiltText {
  text: string;
  written: string;
}

export interface Grammar {
  name: string;
  build(password: string, random: SeededRandom): BuiltText;
  /** The password the engines' own parser reads from the text; null where no parser of ours reads the grammar. */
  parsedPassword(text: string): string | undefined | null;
  /** Parts Describe must keep showing. */
  visible: readonly string[];
}

const HOST = 'db.internal';
const USER = 'app_user';
const DATABASE = 'sales';
const OPTIONS = { encrypt: false, connectTimeoutMs: 1000 };

/**
 * Percent-encodes what a URL's user info cannot hold raw (`/ ? #` end the authority, `%` starts an escape,
 * tabs and newlines are dropped by the parser) and, at random, anything else: both are what users write.
 */
function userInfoPassword(password: string, random: SeededRandom): string {
  return Array.from(password, (char) => (/[/?#%\s]/.test(char) || random.chance(0.3) ? encodeURIComponent(char) : char)).join('');
}

/** A URL query value: `&` and `#` end it, `+` means a space, `%` starts an escape. */
function queryValue(password: string, random: SeededRandom): string {
  return Array.from(password, (char) => (/[&#%+\s]/.test(char) || random.chance(0.3) ? encodeURIComponent(char) : char)).join('');
}

/** An ADO.NET value: raw when SqlClient would read it back unchanged, else quoted with a doubled quote inside. */
function adoValue(password: string, random: SeededRandom): string {
  // A leading `=` would join the key (`pwd==x` is the key `pwd=x`).
  const needsQuotes = /[;"']|^=/.test(password) || password.trim() !== password;
  if (!needsQuotes && random.chance(0.5)) return password;
  const quote = random.pick(['"', "'"]);
  return `${quote}${password.split(quote).join(quote + quote)}${quote}`;
}

/** A libpq conninfo value: single-quoted, backslash before `\` and `'`. */
function conninfoValue(password: string): string {
  return `'${password.replace(/[\\']/g, (char) => `\\${char}`)}'`;
}

/** Redshift's literal, as libs/redshift/warehouse's quoteLiteral writes COPY credentials. */
function sqlLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function spaced(random: SeededRandom, key: string): string {
  return `${random.pick(['', ' '])}${key}${random.pick(['', ' '])}=${random.pick(['', ' '])}`;
}

function shuffled<T>(items: T[], random: SeededRandom): T[] {
  return items.map((item) => ({ item, order: random.next() })).sort((a, b) => a.order - b.order).map(({ item }) => item);
}

export const GRAMMARS: readonly Grammar[] = [
  {
    name: 'postgres:// URL',
    build(password, random) {
      const written = userInfoPassword(password, random);
      const scheme = random.pick(['postgres', 'postgresql', 'PostgreSQL']);
      const query = random.pick(['', '?sslmode=require', '?application_name=svc&sslmode=disable']);
      return { text: `${scheme}://${USER}:${written}@${HOST}${random.pick(['', ':5432'])}/${DATABASE}${query}`, written };
    },
    parsedPassword(text) {
      const password = postgresClientConfig(text, OPTIONS).password;
      return typeof password === 'function' ? (password() as string) : password;
    },
    visible: [USER, HOST, DATABASE],
  },
  {
    name: 'mssql:// URL',
    build(password, random) {
      const written = userInfoPassword(password, random);
      return { text: `mssql://${USER}:${written}@${HOST}:1433/${DATABASE}${random.pick(['', '?encrypt=true'])}`, written };
    },
    parsedPassword: (text) => sqlServerConfig(text, OPTIONS).password,
    visible: [USER, HOST, DATABASE],
  },
  {
    name: 'ADO.NET connection string',
    build(password, random) {
      const written = adoValue(password, random);
      const pairs = shuffled(
        [
          `${spaced(random, random.pick(['Server', 'Data Source']))}${HOST},1433`,
          `${spaced(random, random.pick(['Database', 'Initial Catalog']))}${DATABASE}`,
          `${spaced(random, random.pick(['User ID', 'uid', 'USER']))}${USER}`,
          `${spaced(random, random.pick(['Password', 'PWD', 'pwd', 'PassWord']))}${written}`,
          `${spaced(random, 'Encrypt')}false`,
        ],
        random,
      );
      return { text: `${pairs.join(';')}${random.pick(['', ';'])}`, written };
    },
    parsedPassword(text) {
      const pairs = parseAdoConnectionString(text);
      const read = pairs?.get('password') ?? pairs?.get('pwd');
      // The driver's own configuration takes the same value (sqlServerConfig reads the pairs).
      return read === sqlServerConfig(text, OPTIONS).password ? read : `${String(read)} (parser) ≠ driver config`;
    },
    visible: [HOST, USER, DATABASE],
  },
  {
    name: 'PostgreSQL conninfo',
    build(password, random) {
      const written = conninfoValue(password);
      return { text: `host=${HOST} port=5432 user=${USER} ${random.pick(['password', 'sslpassword'])}${random.pick(['=', ' = '])}${written} dbname=${DATABASE}`, written };
    },
    parsedPassword: () => null,
    visible: [HOST, USER],
  },
  {
    name: 'Redshift JDBC URL',
    build(password, random) {
      const written = queryValue(password, random);
      return { text: `jdbc:redshift://${HOST}:5439/${DATABASE}?user=${USER}&password=${written}&ssl=true`, written };
    },
    parsedPassword: (text) => parseServerUrl(text.slice('jdbc:'.length))?.params.get('password'),
    visible: [HOST, USER, DATABASE],
  },
  {
    name: 'redshift:// URL',
    build(password, random) {
      const written = userInfoPassword(password, random);
      return { text: `redshift://${USER}:${written}@${HOST}:5439/${DATABASE}`, written };
    },
    parsedPassword: (text) => parseServerUrl(text)?.password,
    visible: [USER, HOST, DATABASE],
  },
  {
    name: 'NATS URL with a user and password',
    build(password, random) {
      const written = userInfoPassword(password, random);
      return { text: `${random.pick(['nats', 'tls'])}://${USER}:${written}@${HOST}:4222`, written };
    },
    parsedPassword: (text) => parseServerUrl(text)?.password,
    visible: [USER, HOST],
  },
  {
    name: 'NATS URL with a token',
    build(password) {
      const written = encodeURIComponent(password);
      return { text: `nats://${written}@${HOST}:4222`, written };
    },
    parsedPassword: (text) => parseServerUrl(text)?.user,
    visible: [HOST],
  },
  {
    name: 'Redshift COPY with credentials',
    build(password) {
      const written = sqlLiteral(password);
      const text = `COPY "t" ("id") FROM 's3://bucket/${DATABASE}.manifest' ACCESS_KEY_ID 'AKIAEXAMPLE' SECRET_ACCESS_KEY ${written} SESSION_TOKEN ${written} MANIFEST REGION 'us-east-1'`;
      return { text, written };
    },
    parsedPassword: () => null,
    visible: [DATABASE],
  },
  {
    name: 'JSON with secret members',
    build(password, random) {
      const key = random.pick(['password', 'Password', 'aws_secret_access_key', 'secretKey', 'sslpassword']);
      const text = JSON.stringify({ host: HOST, user: USER, database: DATABASE, [key]: password });
      return { text, written: JSON.stringify(password).slice(1, -1) };
    },
    parsedPassword: (text) => Object.values(JSON.parse(text) as Record<string, string>)[3],
    visible: [HOST, USER, DATABASE],
  },
];
