import { canonicalJson } from '@agentlane/contract';
import type {
  InteractionAnswerInput,
  InteractionAnswerRecord,
  InteractionStore,
} from '../../roles/interactions.js';
import { StoreError } from '../../store.js';
import { toAnswer } from '../rows.js';
import { sortedKeysJson } from '../sorted-keys-json.js';
import type { SqlConn, SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/** The canonical kind that resolves each kind of request, and the payload field naming the request. */
const RESOLUTION = {
  approval: { kind: 'approval.resolved', field: 'approvalId' },
  question: { kind: 'question.resolved', field: 'questionId' },
} as const;

/** Equal answers: the same RFC 8785 canonical JSON (key order and the client's whitespace do not count). */
function sameAnswer(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    // What RFC 8785 refuses (a lone surrogate) is still compared, key order aside.
    return sortedKeysJson(a) === sortedKeysJson(b);
  }
}

/** Interaction answers in SQL: written first, marked once delivered to the engine. */
export class SqlInteractions implements InteractionStore {
  constructor(private readonly ctx: SqlContext) {}

  /**
   * The first answer to a target wins: the same answer again returns it, a different one is a conflict. The
   * thread's head is locked first: every append of canonical rows to the thread locks it too (the group
   * commit), so with `unlessResolved` the resolution read below and the insert are one step against the
   * engine's own resolution, on PostgreSQL as on SQLite (whose single writer already serialises).
   */
  async recordAnswer(input: InteractionAnswerInput): Promise<InteractionAnswerRecord> {
    const { unlessResolved, ...answer } = input;
    if (answer.kind !== 'approval' && answer.kind !== 'question')
      throw new StoreError('invalid', 'kind must be approval or question');
    return this.ctx.tx(async (c) => {
      const head = await one(c, `SELECT head FROM thread_heads WHERE thread_id = ?${this.ctx.db.forUpdate}`, [
        answer.threadId,
      ]);
      if (!head) throw new StoreError('not_found', `thread ${answer.threadId} not found`);
      const existing = await one(
        c,
        'SELECT * FROM interaction_answers WHERE run_id = ? AND kind = ? AND target_id = ?',
        [answer.runId, answer.kind, answer.targetId],
      );
      if (existing) {
        const record = toAnswer(existing);
        if (sameAnswer(record.answer, answer.answer)) return record;
        throw new StoreError(
          'conflict',
          `${answer.kind} ${answer.targetId} was already answered differently`,
          'answered_differently',
        );
      }
      if (unlessResolved === true && (await isResolved(c, answer))) {
        throw new StoreError(
          'conflict',
          `${answer.kind} ${answer.targetId} is already resolved`,
          'already_resolved',
        );
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

/** Whether the run's canonical rows hold the request's resolution (any revision of it). */
async function isResolved(
  c: SqlConn,
  answer: Pick<InteractionAnswerInput, 'threadId' | 'runId' | 'kind' | 'targetId'>,
): Promise<boolean> {
  const { kind, field } = RESOLUTION[answer.kind];
  const rows = await c.all<{ event: string }>(
    'SELECT event FROM canonical_events WHERE thread_id = ? AND run_id = ? AND kind = ?',
    [answer.threadId, answer.runId, kind],
  );
  return rows.some((r) => {
    const payload = (JSON.parse(r.event) as { payload?: Record<string, unknown> }).payload;
    return payload?.[field] === answer.targetId;
  });
}
