import { type CheckpointSaver, createMemorySaver } from '@agentlane/checkpoints';
import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { createDriver } from '../src/index';
import { allowingIO, fakeModelAndWorkspace } from './harness';

const env = fakeModelAndWorkspace('agentlane-services-');

/** The driver opens no database: its checkpoint saver is given (config.checkpoints or the services). */
describe('the checkpoint saver the driver is given', () => {
  it('a database path without services to open it is a config error', () => {
    expect(() => createDriver({ api: 'openai-chat', model: 'm', checkpoints: '/tmp/never.db' })).toThrow(
      /nothing was given to open it/,
    );
  });

  it('comes from the services on the first turn (the place the config names), and stays open after dispose', async () => {
    const saver = createMemorySaver();
    const asked: (string | undefined)[] = [];
    const services = {
      checkpoints: (place?: string): Promise<CheckpointSaver> => {
        asked.push(place);
        return Promise.resolve(saver);
      },
    };
    const driver = createDriver(
      { api: 'openai-chat', model: 'fake-model', baseURL: `${env.fake.url}/v1`, apiKey: 'k', plan: false },
      services,
    );
    expect(asked).toEqual([]);
    const emit = (_f: JsonValue) => {};
    const session = await driver.openSession({ threadId: 'thr_svc', workDir: env.work, generation: 1, emit });
    const io = allowingIO(emit);
    const outcome = await session.runTurn(
      { threadId: 'thr_svc', runId: 'r1', turnId: 'r1', prompt: 'hi' },
      io,
    );
    expect(outcome.outcome).toBe('completed');
    expect(asked).toEqual([undefined]);
    expect(await saver.getLatest('thr_svc')).toBeDefined();
    await driver.dispose();
    expect(await saver.getLatest('thr_svc')).toBeDefined();
  });
});
