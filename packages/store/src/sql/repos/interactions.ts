import type { InteractionAnswerRecord, InteractionStore } from '../../roles/interactions.js';
import { StoreError } from '../../store.js';
import { toAnswer } from '../rows.js';
import { sortedKeysJson } from '../sorted-keys-json.js';
import type { SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/** Interaction answers in SQL: written first, marked once delivered to the engine. */
export class SqlInteractions implements InteractionStore {
  constructor(private readonly ctx: SqlContext) {}

  /** The first answer to a target wins: the same answer again returns it, a different one is a conflict. */
  async recordAnswer(
    answer: Omit<InteractionAnswerRecord, 'answerId' | 'createdAt' | 'deliveredAt'>,
  ): Promise<InteractionAnswerRecord> {
    if (answer.kind !== 'approval' && answer.kind !== 'question')
      throw new StoreError('invalid', 'kind must be approval or question');
    return this.ctx.tx(async (c) => {
      const existing = await one(
        c,
        'SELECT * FROM interaction_answers WHERE run_id = ? AND kind = ? AND target_id = ?',
        [answer.runId, answer.kind, answer.targetId],
      );
      if (existing) {
        const record = toAnswer(existing);
        if (sortedKeysJson(record.answer) === sortedKeysJson(answer.answer)) return record;
        throw new StoreError(
          'conflict',
          `${answer.kind} ${answer.targetId} was already answered differently`,
          'answered_differently',
        );
      }
      if (!(await one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [answer.threadId]))) {
        throw new StoreError('not_found', `thread ${answer.threadId} not found`);
      }
      const record: InteractionAnswerRecord = {
        ...answer,
        answerId: `ans_${this.ctx.newId()}`,
        createdAt: this.ctx.now(),
        deliveredAt: null,
      };
      await c.run(
        'INSERT INTO interaction_answers (answer_id, thread_id, run_id, kind, target_id, answer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          record.answerId,
          record.threadId,
          record.runId,
          record.kind,
          record.targetId,
          JSON.stringify(record.answer),
          record.createdAt,
        ],
      );
      return record;
    });
  }

  async pendingAnswers(runId: string): Promise<InteractionAnswerRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>(
        'SELECT * FROM interaction_answers WHERE run_id = ? AND delivered_at IS NULL ORDER BY created_at, answer_id',
        [runId],
      ),
    );
    return rows.map(toAnswer);
  }

  async markAnswerDelivered(answerId: string): Promise<void> {
    await this.ctx.tx(async (c) => {
      const row = await one(c, 'SELECT delivered_at FROM interaction_answers WHERE answer_id = ?', [
        answerId,
      ]);
      if (!row) throw new StoreError('not_found', `answer ${answerId} not found`);
      if (row.delivered_at === null) {
        await c.run('UPDATE interaction_answers SET delivered_at = ? WHERE answer_id = ?', [
          this.ctx.now(),
          answerId,
        ]);
      }
    });
  }
}
