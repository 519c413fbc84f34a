import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** InteractionStore: answers to approvals and questions. */
export function interactionTests(s: SuiteContext): void {
  const { test, newThread, newRun, code } = s;

  test('interactions: first answer wins, pending until delivered', async ({ store }) => {
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const answer = await store.recordAnswer({
      threadId,
      runId,
      kind: 'approval',
      targetId: 'ap1',
      answer: { optionId: 'allow' },
    });
    expect(answer).toMatchObject({ kind: 'approval', targetId: 'ap1', deliveredAt: null });
    expect(
      await store.recordAnswer({
        threadId,
        runId,
        kind: 'approval',
        targetId: 'ap1',
        answer: { optionId: 'allow' },
      }),
    ).toEqual(answer);
    expect(
      await code(
        store.recordAnswer({
          threadId,
          runId,
          kind: 'approval',
          targetId: 'ap1',
          answer: { optionId: 'deny' },
        }),
      ),
    ).toBe('conflict');
    const question = await store.recordAnswer({
      threadId,
      runId,
      kind: 'question',
      targetId: 'q1',
      answer: { text: 'yes' },
    });
    expect((await store.pendingAnswers(runId)).map((a) => a.answerId)).toEqual([
      answer.answerId,
      question.answerId,
    ]);
    await store.markAnswerDelivered(answer.answerId);
    await store.markAnswerDelivered(answer.answerId);
    expect((await store.pendingAnswers(runId)).map((a) => a.answerId)).toEqual([question.answerId]);
    expect(await code(store.markAnswerDelivered('ans_missing'))).toBe('not_found');
  });
}
