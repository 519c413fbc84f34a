import { beforeAll, describe, expect, it } from 'vitest';
import { chatDriver, DELEGATING_TURN, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-budget-');
beforeAll(() => {
  // Every tool step spends 100 input + 20 output tokens; the answer without tools 100 + 10.
  env.fake.setScenario((req) =>
    req.toolNames.length > 0
      ? {
          toolCalls: [{ name: 'list_files', arguments: {}, id: `call_${req.index}` }],
          usage: { inputTokens: 100, outputTokens: 20 },
        }
      : { text: 'Here is what I found.', usage: { inputTokens: 100, outputTokens: 10 } },
  );
});

const driver = (over: Record<string, unknown> = {}) => chatDriver(env.fake.url, over);

const warnings = (r: Awaited<ReturnType<typeof runTurn>>) =>
  r.events.filter((e) => e.draft.kind === 'harness.warning').map((e) => e.draft.payload);
const stop = (r: Awaited<ReturnType<typeof runTurn>>) =>
  r.events.find((e) => e.draft.kind === 'turn.completed')?.draft.payload;
const rows = (r: Awaited<ReturnType<typeof runTurn>>) => r.audit.map((a) => `${a.stage_id}/${a.call_class}`);

describe('the per-turn budget of the tool loop', () => {
  it('a token budget stops the loop before the step that would pass it, with a warning naming the figures', async () => {
    const r = await runTurn(driver({ turnTokenBudget: 200 }), { prompt: 'loop', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    expect(warnings(r)).toEqual([
      expect.objectContaining({ code: 'token_budget', detail: { limit: 200, spent: 240 } }),
    ]);
    expect(JSON.stringify(warnings(r)[0])).toMatch(/240 tokens.*budget is 200 \(turnTokenBudget\)/);
    // Two tool steps (120 tokens each), then one answer without tools from what was done.
    expect(rows(r)).toEqual([
      'tool-loop/model',
      'tool-loop/tool',
      'tool-loop/model',
      'tool-loop/tool',
      'synthesize/model',
    ]);
    expect(stop(r)).toMatchObject({ stopReason: 'max_tokens', rawStopReason: 'token_budget' });
    const messages = r.events.filter((e) => e.draft.kind === 'message.completed');
    expect(messages.at(-1)?.draft.payload).toMatchObject({ text: 'Here is what I found.' });
  });

  it('a cost budget stops the loop for a priced model', async () => {
    const r = await runTurn(
      driver({
        turnCostBudget: 0.3,
        prices: { 'fake-model': { input: 1000, output: 1000, currency: 'EUR' } },
      }),
      { prompt: 'loop', workDir: env.work },
    );
    // 0.12 EUR per tool step: over 0.3 after three.
    expect(warnings(r)).toEqual([
      expect.objectContaining({ code: 'cost_budget', detail: { limit: 0.3, spent: 0.36, currency: 'EUR' } }),
    ]);
    expect(rows(r).filter((x) => x === 'tool-loop/model')).toHaveLength(3);
    expect(rows(r).at(-1)).toBe('synthesize/model');
    expect(stop(r)).toMatchObject({ stopReason: 'other', rawStopReason: 'cost_budget' });
    const turn = r.events.find((e) => e.draft.kind === 'usage.updated' && e.draft.payload.scope === 'turn');
    expect(turn?.draft.payload).toMatchObject({ inputTokens: 400, outputTokens: 70, cost: { amount: 0.47 } });
  });

  it('a cost budget without a price for the model is said to be unenforced; the step limit still holds', async () => {
    const r = await runTurn(driver({ turnCostBudget: 0.01, maxSteps: 2 }), {
      prompt: 'loop',
      workDir: env.work,
    });
    expect(warnings(r).map((w) => (w as { code: string }).code)).toEqual([
      'cost_budget_unpriced',
      'step_limit',
    ]);
    expect(warnings(r)[1]).toMatchObject({ detail: { limit: 2, spent: 2 } });
    expect(stop(r)).toMatchObject({ stopReason: 'max_turn_requests' });
  });

  it("a sub-agent gets what is left of its parent's budget, and what it spent counts against the parent's", async () => {
    env.fake.setScenario(DELEGATING_TURN);
    const r = await runTurn(driver({ turnTokenBudget: 300, subagents: true }), {
      prompt: 'delegate',
      workDir: env.work,
    });
    expect(r.outcome.outcome).toBe('completed');
    const warned = r.events
      .filter((e) => e.draft.kind === 'harness.warning')
      .map((e) => [e.namespace ?? [], e.draft.payload]);
    // The child starts with 300 - 110 = 190 left and stops after its first step (220); the parent's turn has
    // then spent 110 + 220 + 330 (the child's answer) = 660.
    expect(warned).toEqual([
      [
        ['thr_test:task:call_u'],
        expect.objectContaining({ code: 'token_budget', detail: { limit: 190, spent: 220 } }),
      ],
      [[], expect.objectContaining({ code: 'token_budget', detail: { limit: 300, spent: 660 } })],
    ]);
    expect(JSON.stringify(warned[0])).toContain("what was left of the parent turn's turnTokenBudget");
    expect(rows(r)).toEqual([
      'tool-loop/model',
      'tool-loop/model',
      'tool-loop/tool',
      'synthesize/model',
      'tool-loop/tool',
      'synthesize/model',
    ]);
  });

  it('a budget that is not a positive number is a config error', () => {
    expect(() => driver({ turnTokenBudget: 0 })).toThrow(/turnTokenBudget must be a positive integer/);
    expect(() => driver({ turnTokenBudget: 10.5 })).toThrow(/turnTokenBudget/);
    expect(() => driver({ turnCostBudget: -1 })).toThrow(/turnCostBudget must be a positive number/);
    expect(() => driver({ turnCostBudget: 'a lot' })).toThrow(/turnCostBudget/);
  });
});
