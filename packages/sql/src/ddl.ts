import type { Dialect } from './url.js';

/**
 * The few column spellings in which SQLite and PostgreSQL differ, as data: a DDL template names the role
 * (`{{autoId}}`) and each dialect fills in its own type, so a table is written once for both.
 */
export const DIALECT_DDL = {
  /** An increasing row id, the primary key. */
  autoId: { sqlite: 'INTEGER PRIMARY KEY AUTOINCREMENT', postgres: 'BIGSERIAL PRIMARY KEY' },
  /** An identity row id, the primary key (the store's spelling since its first schema). */
  identity: {
    sqlite: 'INTEGER PRIMARY KEY AUTOINCREMENT',
    postgres: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  },
  /** A 64-bit integer. */
  bigint: { sqlite: 'INTEGER', postgres: 'BIGINT' },
  /** A boolean (SQLite keeps 0/1). */
  bool: { sqlite: 'INTEGER', postgres: 'BOOLEAN' },
  /** The literal false of `bool`. */
  false: { sqlite: '0', postgres: 'false' },
  /** A double-precision number. */
  double: { sqlite: 'REAL', postgres: 'DOUBLE PRECISION' },
  /** A JSON document (text on SQLite). */
  json: { sqlite: 'TEXT', postgres: 'JSONB' },
  /** Raw bytes. */
  bytes: { sqlite: 'BLOB', postgres: 'BYTEA' },
} as const satisfies Record<string, Record<Dialect, string>>;

export type DdlRole = keyof typeof DIALECT_DDL;

/**
 * Fills a DDL template for one dialect: `{{role}}` from DIALECT_DDL, `{{name}}` from `vars` (e.g. a schema
 * prefix). An unknown placeholder is a programming error and throws.
 */
export function renderDdl(template: string, dialect: Dialect, vars: Record<string, string> = {}): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (Object.hasOwn(vars, name)) return vars[name] as string;
    if (Object.hasOwn(DIALECT_DDL, name)) return DIALECT_DDL[name as DdlRole][dialect];
    throw new Error(`DDL template names an unknown placeholder {{${name}}}`);
  });
}
