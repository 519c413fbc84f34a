import { costOf } from '@agentlane/runtime';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-prices-');

const driver = (over: Record<string, unknown> = {}) => chatDriver(env.fake.url, over);

const twoSteps = () =>
  env.fake.setScenario([
    {
      toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_ls' }],
      usage: { inputTokens: 1000, outputTokens: 500 },
    },
    { text: 'Two files.', usage: { inputTokens: 2000, outputTokens: 100 } },
  ]);

describe('costOf', () => {
  it('prices cached input and reasoning output once each, at their own prices or the base ones', () => {
    const price = { input: 2, output: 10, reasoning: 20, cached: 0.5 };
    const usage = { inputTokens: 1000, cachedInputTokens: 200, outputTokens: 500, reasoningTokens: 100 };
    // (800×2 + 200×0.5 + 400×10 + 100×20) / 1M
    expect(costOf(price, usage)).toEqual({ amount: 0.0077, currency: 'USD' });
    // Without their own prices, cached tokens cost input and reasoning tokens cost output.
    expect(costOf({ input: 2, output: 10, currency: 'EUR' }, usage)).toEqual({
      amount: 0.007,
      currency: 'EUR',
    });
    expect(costOf(undefined, usage)).toBeUndefined();
  });
});

describe('prices in the built-in engine', () => {
  it('usage.updated carries the cost per step and per turn, and the ledger rows carry it too', async () => {
    twoSteps();
    const r = await runTurn(driver({ prices: { 'fake-model': { input: 1, output: 2 } } }), {
      prompt: 'list',
      workDir: env.work,
    });
    expect(r.outcome.outcome).toBe('completed');
    const usage = r.events.filter((e) => e.draft.kind === 'usage.updated').map((e) => e.draft.payload);
    expect(usage).toEqual([
      expect.objectContaining({ scope: 'step', inputTokens: 1000, cost: { amount: 0.002, currency: 'USD' } }),
      expect.objectContaining({
        scope: 'step',
        inputTokens: 2000,
        cost: { amount: 0.0022, currency: 'USD' },
      }),
      expect.objectContaining({
        scope: 'turn',
        inputTokens: 3000,
        outputTokens: 600,
        cost: { amount: 0.0042, currency: 'USD' },
      }),
    ]);
    const rows = r.audit.filter((a) => a.call_class === 'model').map((a) => a.payload);
    expect(rows).toEqual([
      expect.objectContaining({ usage: expect.objectContaining({ costAmount: 0.002, costCurrency: 'USD' }) }),
      expect.objectContaining({
        usage: expect.objectContaining({ costAmount: 0.0022, costCurrency: 'USD' }),
      }),
    ]);
  });

  it('no table, or a model the table does not name: no cost field anywhere', async () => {
    for (const over of [{}, { prices: { 'other-model': { input: 1, output: 2 } } }]) {
      twoSteps();
      const r = await runTurn(driver(over), { prompt: 'list', workDir: env.work });
      const usage = r.events.filter((e) => e.draft.kind === 'usage.updated').map((e) => e.draft.payload);
      expect(usage).toHaveLength(3);
      for (const u of usage) expect(u).not.toHaveProperty('cost');
      expect(JSON.stringify(r.audit)).not.toContain('cost');
    }
  });

  it('a bad price table is refused when the driver is made', () => {
    expect(() => driver({ prices: { m: { input: -1, output: 2 } } })).toThrow(/prices\.m\.input/);
    expect(() => driver({ prices: { m: { input: 1 } } })).toThrow(/prices\.m\.output/);
    expect(() => driver({ prices: { m: { input: 1, output: 1, currency: 'dollars' } } })).toThrow(/currency/);
  });
});
