import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineDriver } from '@agentlane/engine-kit';
import { createLane, type Lane, type LaneOptions } from '@agentlane/lane';
import { openStore, type Store } from '@agentlane/store';
import { type AgentlaneServer, createServer, type ServerOptions } from '../../src';
import { createScriptedDriver } from './scripted-engine';

export interface TestServer {
  /** The SQLite file: a second test server can share it, as a second process would. */
  dbPath: string;
  url: string;
  api: string;
  store: Store;
  lane: Lane;
  server: AgentlaneServer;
  /** Creates a session (on the scripted engine unless named) and returns its id. */
  createSession(headers?: Record<string, string>, engine?: string): Promise<string>;
  close(): Promise<void>;
}

/** A real server on a temp SQLite store with the real lane and a scripted test engine, on 127.0.0.1:0. */
export async function startTestServer(
  options: Partial<Omit<ServerOptions, 'store' | 'lane' | 'engines'>> = {},
  shared: {
    dbPath?: string;
    execute?: boolean;
    /** Engines besides the scripted one. */
    drivers?: EngineDriver[];
    /** Where the lane writes the audit rows translators surface. */
    audit?: LaneOptions['audit'];
    /** The store the lane and the server use, around the opened one (a test's hooks into its calls). */
    wrapStore?: (store: Store) => Store;
  } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-server-'));
  // A SQLite file, or a postgres:// URL (with ?schema= of the test's own).
  const dbPath = shared.dbPath ?? join(dir, 'test.db');
  const opened = await openStore(dbPath);
  const store = shared.wrapStore ? shared.wrapStore(opened) : opened;
  const drivers: EngineDriver[] = [createScriptedDriver(), ...(shared.drivers ?? [])];
  const lane = createLane({
    store,
    drivers,
    ownerId: `test-${Math.random().toString(36).slice(2, 8)}`,
    pollIntervalMs: 20,
    ...(shared.execute === false ? { execute: false } : {}),
    ...(shared.audit ? { audit: shared.audit } : {}),
  });
  await lane.start();
  const server = await createServer({
    store,
    lane,
    engines: { get: (n) => drivers.find((d) => d.name === n), list: () => drivers },
    defaultWorkDir: dir,
    ...options,
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const api = `${url}/api/harness`;
  return {
    dbPath,
    url,
    api,
    store,
    lane,
    server,
    async createSession(headers = {}, engine = 'scripted') {
      const res = await fetch(`${api}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ engine, title: 'test' }),
      });
      if (res.status !== 201) throw new Error(`create session: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { session: { id: string } }).session.id;
    },
    async close() {
      await server.shutdown().catch(() => {});
      await lane.stop();
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** JSON of a response in a test: shape-checked by the assertions, not by the type system. */
// biome-ignore lint/suspicious/noExplicitAny: test helper for reading arbitrary JSON responses
export type AnyJson = any;

export async function readJson(res: Response): Promise<AnyJson> {
  return res.json();
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: AnyJson }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}
