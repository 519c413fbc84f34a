import { describe, expect, it } from 'vitest';
import {
  CommitOutcomeUnknownError,
  inDatabaseOutage,
  isBusyError,
  isConnectionError,
  isDatabaseUnavailable,
  isRetrySafe,
  parseDatabaseUrl,
  renderDdl,
  retryTransient,
} from '../src/index';

describe('parseDatabaseUrl', () => {
  it('reads every accepted spelling of both dialects', () => {
    expect(parseDatabaseUrl('postgres://u@h:5432/db?schema=t1&sslmode=disable')).toEqual({
      dialect: 'postgres',
      url: 'postgres://u@h:5432/db?sslmode=disable',
      schema: 't1',
    });
    expect(parseDatabaseUrl('POSTGRESQL://u@h/db')).toEqual({
      dialect: 'postgres',
      url: 'POSTGRESQL://u@h/db',
    });
    expect(parseDatabaseUrl('sqlite:data/a.db')).toEqual({ dialect: 'sqlite', path: 'data/a.db' });
    expect(parseDatabaseUrl('file:///var/a%20b.db')).toEqual({ dialect: 'sqlite', path: '/var/a b.db' });
    expect(parseDatabaseUrl('plain.db')).toEqual({ dialect: 'sqlite', path: 'plain.db' });
    expect(() => parseDatabaseUrl(' ')).toThrow(/empty/);
  });
});

describe('error classes', () => {
  it('tells a lost or refused connection from a wrong request', () => {
    expect(isConnectionError(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(
      true,
    );
    expect(
      isConnectionError(Object.assign(new Error('the database system is starting up'), { code: '57P03' })),
    ).toBe(true);
    expect(isConnectionError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isConnectionError(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })])),
    ).toBe(true);
    expect(isConnectionError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionError(new Error('syntax error'))).toBe(false);
    expect(isBusyError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' }))).toBe(true);
    // A full disk is an outage (503 with Retry-After), not a bug of the request (500): space may come back.
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(isDatabaseUnavailable(full)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('could not extend file'), { code: '53100' }))).toBe(
      true,
    );
    expect(isRetrySafe(full)).toBe(false);
  });

  it('never retries a COMMIT whose outcome is unknown, but still calls it unavailable', () => {
    const unknown = new CommitOutcomeUnknownError(new Error('Connection terminated unexpectedly'));
    expect(isDatabaseUnavailable(unknown)).toBe(true);
    expect(isRetrySafe(unknown)).toBe(false);
  });

  it('retries a transient failure within the window and rethrows anything else at once', async () => {
    let calls = 0;
    const value = await retryTransient(async () => {
      calls++;
      if (calls < 3) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      return 'ok';
    });
    expect([value, calls]).toEqual(['ok', 3]);
    let wrong = 0;
    await expect(
      retryTransient(async () => {
        wrong++;
        throw new Error('syntax error');
      }),
    ).rejects.toThrow(/syntax/);
    expect(wrong).toBe(1);
    const started = Date.now();
    await expect(
      retryTransient(
        async () => {
          throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
        },
        { windowMs: 200 },
      ),
    ).rejects.toThrow(/refused/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('once work outlasted a window, the next waits the short outage window until something succeeds', async () => {
    const refused = () => Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    await expect(
      retryTransient(
        async () => {
          throw refused();
        },
        { windowMs: 100 },
      ),
    ).rejects.toThrow(/refused/);
    expect(inDatabaseOutage()).toBe(true);
    // The default window would be 15 s of attempts (about 35); in the outage it is OUTAGE_WINDOW_MS.
    let attempts = 0;
    await expect(
      retryTransient(async () => {
        attempts++;
        throw refused();
      }),
    ).rejects.toThrow(/refused/);
    expect(attempts).toBeLessThanOrEqual(6);
    expect(await retryTransient(async () => 'back')).toBe('back');
    expect(inDatabaseOutage()).toBe(false);
  });
});

describe('renderDdl', () => {
  it('fills the dialect roles and the variables, and refuses an unknown placeholder', () => {
    const t = 'CREATE TABLE {{S}}t (id {{autoId}}, on_ {{bool}} NOT NULL DEFAULT {{false}})';
    expect(renderDdl(t, 'sqlite', { S: '' })).toBe(
      'CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, on_ INTEGER NOT NULL DEFAULT 0)',
    );
    expect(renderDdl(t, 'postgres', { S: '"s".' })).toBe(
      'CREATE TABLE "s".t (id BIGSERIAL PRIMARY KEY, on_ BOOLEAN NOT NULL DEFAULT false)',
    );
    expect(() => renderDdl('{{nope}}', 'sqlite')).toThrow(/unknown placeholder/);
  });
});
