import { type AuditableCall, parseAuditableCall } from '@agentlane/contract';
import { expect, it } from 'vitest';
import type { AuditLedger } from '../src/index';
import { row } from './rows';

/** A model's hostile text: a NUL, a lone high and a lone low surrogate, and a valid pair (kept). */
const hostile = (label: string) => `${label}\u0000x\ud800y\udc00z\u{1F600}`;
/** The same text as a column reads it back on both stores: each character it cannot hold is U+FFFD. */
const asColumn = (label: string) => `${label}\ufffdx\ufffdy\ufffdz\u{1F600}`;

/**
 * Rows whose every text a model or a tool controls holds U+0000 and lone surrogates: model, finish reason,
 * provider and transport (columns), and the payload's texts, tool names, arguments (keys too) and errors.
 */
function hostileRows(session: string): AuditableCall[] {
  const model = row({
    session_id: session,
    model: hostile('model'),
    finish_reason: hostile('stop'),
    provider: hostile('provider'),
    transport: hostile('transport'),
    status: 'error',
    payload: {
      kind: 'model_call',
      request: { messageCount: 1, toolNames: [hostile('tool')], promptPreview: hostile('prompt') },
      response: {
        textPreview: hostile('text'),
        toolCalls: [{ toolCallId: 'call_1', toolName: hostile('tool') }],
      },
      usage: { inputTokens: 1, costAmount: 0.5, costCurrency: hostile('USD') },
      error: hostile('error'),
    },
  });
  const tool = row({
    session_id: session,
    call_class: 'tool',
    model: null,
    finish_reason: null,
    http_status: null,
    payload: {
      kind: 'tool_call',
      toolCallId: 'call_1',
      toolName: hostile('write_file'),
      input: { [hostile('key')]: hostile('value'), list: [hostile('item'), { deep: hostile('deep') }] },
      outputPreview: hostile('output'),
      error: hostile('failed'),
      approval: { decision: hostile('allow'), answeredBy: hostile('user') },
    },
  });
  return [model, tool];
}

/**
 * Text no PostgreSQL column holds as sent (U+0000 anywhere, lone surrogates): every row is recorded on both
 * stores, and both read back the same. The payload is exact; the text columns read U+FFFD in place of each
 * such character (see the ledger's README).
 */
export function unstorableTextTests(open: () => Promise<AuditLedger>): void {
  it('records rows with NUL and lone surrogates in every string field, with the good rows of the batch', async () => {
    const ledger = await open();
    const session = 's-nul';
    const [model, tool] = hostileRows(session) as [AuditableCall, AuditableCall];
    const before = row({ session_id: session });
    const after = row({ session_id: session });
    expect(await ledger.record([before, model, tool, after])).toEqual({ inserted: 4 });

    const { items } = await ledger.list(session);
    const columns = {
      model: asColumn('model'),
      finish_reason: asColumn('stop'),
      provider: asColumn('provider'),
      transport: asColumn('transport'),
    };
    expect(items).toEqual([before, { ...model, ...columns }, tool, after]);
    // The payload is the model's and the tool's own text, NUL and lone surrogates included.
    expect(items[1]?.payload).toEqual(model.payload);
    expect(items[2]?.payload).toEqual(tool.payload);
    // Every row read back is a valid contract row, under the record id and key it was written with.
    for (const item of items) expect(parseAuditableCall(item).ok).toBe(true);
    expect(items.map((r) => r.record_id)).toEqual([before, model, tool, after].map((r) => r.record_id));

    // Writing the same rows again (the final pass does) is a no-op: the stored row is that row.
    expect(await ledger.record([before, model, tool, after])).toEqual({ inserted: 0 });
    expect(await ledger.record(items)).toEqual({ inserted: 0 });
    expect((await ledger.list(session)).items).toEqual(items);
  });

  it('refuses a row whose idempotency key holds a NUL or a lone surrogate, before writing anything', async () => {
    const ledger = await open();
    // A key read back with U+FFFD would not be the key the row's record id was made from, and two keys could
    // become one (a second call's row dropped as a retry): the key must be stored exactly or not at all.
    for (const field of ['session_id', 'turn_id', 'stage_id'] as const) {
      for (const bad of ['s-key\u0000', 's-key\ud800']) {
        const good = row({ session_id: 's-key' });
        const rows = [good, row({ session_id: 's-key', [field]: bad })];
        await expect(ledger.record(rows)).rejects.toMatchObject({ code: 'invalid_row' });
      }
    }
    expect((await ledger.list('s-key')).items).toEqual([]);
  });

  it('lists a session id holding a NUL as no session (no database error)', async () => {
    const ledger = await open();
    expect(await ledger.list('s-nul\u0000')).toEqual({ items: [], nextCursor: null });
  });
}
