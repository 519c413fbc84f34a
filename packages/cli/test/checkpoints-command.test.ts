import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteSaver, newCheckpointId } from '@agentlane/checkpoints';
import { putTurns } from '@agentlane/checkpoints/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, resolveServeConfig, serve } from '../src';
import { runCheckpointsCommand } from '../src/commands/checkpoints-client';

describe('agentlane checkpoints', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lists a session served by agentlane serve (same SQLite file) and prints one with --id', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentlane-cli-cp-'));
    const config = resolveServeConfig({ port: '0', dataDir }, {});
    const { url, stop } = await serve({ ...config, recordedSessions: false }, () => {});
    const saver = createSqliteSaver({ database: config.db });
    try {
      const puts = await putTurns(saver, 'cli-session', 3, (turn) => turn);
      const out: string[] = [];
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        out.push(String(chunk));
        return true;
      });
      await buildProgram().parseAsync(['node', 'agentlane', 'checkpoints', 'cli-session', '--server', url]);
      const lines = out.join('').trim().split('\n');
      expect(lines[0]).toMatch(/^CHECKPOINT/);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(puts.map((c) => c.id).reverse());
      out.length = 0;
      await buildProgram().parseAsync([
        'node',
        'agentlane',
        'checkpoints',
        'cli-session',
        '--server',
        url,
        '--id',
        puts[1]?.id ?? '',
      ]);
      expect(JSON.parse(out.join(''))).toEqual(puts[1]);
    } finally {
      await saver.close();
      await stop();
    }
  });
});

// Moved from the server's checkpoint route tests with the command: the client side of those routes.
describe('runCheckpointsCommand', () => {
  it('backs `agentlane checkpoints SESSION [--id ID]`', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentlane-cli-cp-client-'));
    const config = resolveServeConfig({ port: '0', dataDir }, {});
    const { url, stop } = await serve({ ...config, recordedSessions: false }, () => {});
    const saver = createSqliteSaver({ database: config.db, fullSnapshotEvery: 4 });
    const sessionId = 'cli-client-session';
    try {
      const puts = await putTurns(saver, sessionId, 7, (turn) => ({
        id: `m${turn}`,
        role: 'user',
        parts: [],
      }));
      const lines: string[] = [];
      await runCheckpointsCommand({ server: url, session: sessionId, limit: 2, write: (l) => lines.push(l) });
      expect(lines[0]).toMatch(/^CHECKPOINT\s+STAGE/);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(puts.map((c) => c.id).reverse());
      // Paging through a long list says how far it got (here on every page), on its own channel.
      const progress: string[] = [];
      await runCheckpointsCommand({
        server: url,
        session: sessionId,
        limit: 2,
        write: () => {},
        progress: (l) => progress.push(l),
        progressIntervalMs: -1,
      });
      expect(progress).toEqual([
        `agentlane checkpoints ${sessionId}: 2 checkpoints read`,
        `agentlane checkpoints ${sessionId}: 4 checkpoints read`,
        `agentlane checkpoints ${sessionId}: 6 checkpoints read`,
        `agentlane checkpoints ${sessionId}: 7 checkpoints read`,
        `agentlane checkpoints ${sessionId}: 7 checkpoints read`,
      ]);
      const one: string[] = [];
      await runCheckpointsCommand({
        server: url,
        session: sessionId,
        id: puts[2]?.id,
        write: (l) => one.push(l),
      });
      expect(JSON.parse(one.join('\n'))).toEqual(puts[2]);
      await expect(
        runCheckpointsCommand({ server: url, session: sessionId, id: newCheckpointId(), write: () => {} }),
      ).rejects.toThrow(/HTTP 404/);
    } finally {
      await saver.close();
      await stop();
    }
  });
});
