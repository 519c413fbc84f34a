/** Where a database lives, read from the one setting every package takes (`--db`, `AGENTLANE_DB`). */
export type DatabaseTarget =
  | { dialect: 'postgres'; url: string; schema?: string }
  | { dialect: 'sqlite'; path: string };

export type Dialect = DatabaseTarget['dialect'];

/** `postgres://…` and `postgresql://…` (any case) are PostgreSQL; everything else is a SQLite file. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * `postgres://…` / `postgresql://…` picks PostgreSQL (an extra `?schema=name` puts the tables in that
 * schema), anything else is a SQLite file (`sqlite:relative.db`, `sqlite:///abs.db`, `file:…` or a path).
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (typeof url !== 'string' || url.trim() === '') throw new Error('database url is empty');
  if (isPostgresUrl(url)) return { dialect: 'postgres', ...postgresOptions(url) };
  return { dialect: 'sqlite', path: sqlitePath(url) };
}

export function postgresOptions(url: string): { url: string; schema?: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { url };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}

export function sqlitePath(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length);
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  if (url.startsWith('file://')) return decodeURIComponent(new URL(url).pathname);
  if (url.startsWith('file:')) return url.slice('file:'.length);
  return url;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A schema name is spliced into SQL (search_path, qualified names): plain identifiers only. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`invalid schema name ${JSON.stringify(schema)}: letters, digits and _ only`);
  }
  return schema;
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
