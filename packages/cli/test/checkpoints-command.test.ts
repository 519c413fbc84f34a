import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BinaryOpAggregateChannel,
  ChannelSet,
  createSqliteSaver,
  newCheckpointId,
} from '@agentlane/checkpoints';
import type { Checkpoint } from '@agentlane/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, resolveServeConfig, serve } from '../src';

describe('agentlane checkpoints', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lists a session served by agentlane serve (same SQLite file) and prints one with --id', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentlane-cli-cp-'));
    const config = resolveServeConfig({ port: '0', dataDir }, {});
    const { url, stop } = await serve({ ...config, recordedSessions: false }, () => {});
    const saver = createSqliteSaver({ database: config.db });
    try {
      const set = new ChannelSet({ conversation: new BinaryOpAggregateChannel('append') });
      const puts: Checkpoint[] = [];
      for (let turn = 1; turn <= 3; turn++) {
        set.step([{ channel: 'conversation', value: turn }]);
        const parent = puts[puts.length - 1];
        const cp: Checkpoint = {
          id: newCheckpointId(),
          sessionId: 'cli-session',
          stageId: 'post-turn',
          createdAt: new Date().toISOString(),
          schemaVersion: 1,
          channels: set.snapshot(),
          ...(parent ? { parentCheckpointId: parent.id } : {}),
        };
        await saver.put(cp);
        puts.push(cp);
      }
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
