import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port';

const run = promisify(execFile);

/** A PostgreSQL server of the test's own (never the shared one), which it may stop and start at will. */
export interface PrivatePostgres {
  url: string;
  port: number;
  /** Stops the server (fast: connections get 57P01), waits `downMs`, starts it again; resolves when it answers. */
  restart(downMs: number): Promise<{ downMs: number }>;
  stop(): Promise<void>;
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/**
 * initdb into a temp dir as the `postgres` user (PostgreSQL refuses to run as root), on a free port of
 * 127.0.0.1, trust auth, fsync off (durability across a crash is not what these tests look at; a fast
 * restart is). Resolves null, with the reason, where that is impossible (not root, no binaries).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres | { unavailable: string }> {
  const bin = BIN_DIRS.find((dir) => existsSync(join(dir, 'initdb')));
  if (!bin) return { unavailable: 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin' };
  if (process.getuid?.() !== 0) return { unavailable: 'not root: cannot run initdb as the postgres user' };
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-pg-'));
  const data = join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { timeout: 60_000 });
  try {
    const ids = await run('id', ['-u', 'postgres']);
    const gids = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
    chmodSync(dir, 0o700);
    await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { unavailable: `initdb failed: ${(error as Error).message.split('\n')[0]}` };
  }
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200`;
  const start = () =>
    asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start']);
  const stopFast = () => asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart(downMs) {
      const began = Date.now();
      await stopFast();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
      return { downMs: Date.now() - began };
    },
    async stop() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * pg_terminate_backend of every agentlane connection on a server (application_name `agentlane-<pid>…`, set
 * by the SQL layer), idle or busy, as an operator or a failover would; resolves with how many.
 */
export async function terminateAgentlaneBackends(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url, application_name: 'faults-admin' });
  await admin.connect();
  try {
    const r = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'agentlane-%'",
    );
    return r.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}
