import { expect, it } from 'vitest';
import type { AuditLedger } from '../src/index';
import { row } from './rows';
import { unstorableTextTests } from './text-suite';

/** The behaviour both backends share; `mutate` runs raw SQL against the ledger's own table. */
export function ledgerSuite(
  open: () => Promise<AuditLedger>,
  mutate: (sql: string) => Promise<unknown>,
): void {
  it('records rows and reads them back in order with exactly the contract columns', async () => {
    const ledger = await open();
    const a = row({ session_id: 's-order', seq_within_turn: 1 });
    const b = row({
      session_id: 's-order',
      seq_within_turn: 2,
      call_class: 'tool',
      http_status: null,
      model: null,
      finish_reason: null,
      payload: { kind: 'tool_call', toolCallId: 't1', toolName: 'write_file', input: { path: 'a' } },
    });
    expect(await ledger.record([a, b])).toEqual({ inserted: 2 });
    const page = await ledger.list('s-order');
    expect(page.items).toEqual([a, b]);
    expect(page.nextCursor).toBeNull();
  });

  it('is idempotent on (session_id, turn_id, stage_id, seq_within_turn)', async () => {
    const ledger = await open();
    const a = row({ session_id: 's-idem', seq_within_turn: 1 });
    await ledger.record([a]);
    // A retried write of the same call (even with a new record id) is a no-op.
    expect(await ledger.record([{ ...a, record_id: row().record_id, latency_ms: 99 }])).toEqual({
      inserted: 0,
    });
    expect((await ledger.list('s-idem')).items).toEqual([a]);
  });

  it('pages with a cursor', async () => {
    const ledger = await open();
    const rows = Array.from({ length: 5 }, (_, i) => row({ session_id: 's-page', seq_within_turn: i + 1 }));
    await ledger.record(rows);
    const first = await ledger.list('s-page', { limit: 2 });
    expect(first.items.map((r) => r.seq_within_turn)).toEqual([1, 2]);
    const second = await ledger.list('s-page', { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.items.map((r) => r.seq_within_turn)).toEqual([3, 4]);
    const third = await ledger.list('s-page', { limit: 2, cursor: second.nextCursor ?? '' });
    expect(third.items.map((r) => r.seq_within_turn)).toEqual([5]);
    expect(third.nextCursor).toBeNull();
    await expect(ledger.list('s-page', { cursor: 'garbage' })).rejects.toThrow(/cursor/);
    // Another spelling of an issued position is no cursor this ledger issued.
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    for (const spelled of [b64('a:01'), b64('a:+1'), `${first.nextCursor ?? ''}=`])
      await expect(ledger.list('s-page', { cursor: spelled })).rejects.toThrow(/cursor/);
  });

  it('refuses a malformed row before writing anything', async () => {
    const ledger = await open();
    const bad = { ...row({ session_id: 's-bad' }), status: 'weird' } as never;
    await expect(ledger.record([row({ session_id: 's-bad' }), bad])).rejects.toThrow(/status/);
    expect((await ledger.list('s-bad')).items).toEqual([]);
  });

  it('is append-only in the database itself: UPDATE and DELETE are refused', async () => {
    const ledger = await open();
    await ledger.record([row({ session_id: 's-append' })]);
    await expect(
      mutate(`UPDATE harness_auditable_calls SET status = 'error' WHERE session_id = 's-append'`),
    ).rejects.toThrow(/append-only/);
    await expect(mutate(`DELETE FROM harness_auditable_calls WHERE session_id = 's-append'`)).rejects.toThrow(
      /append-only/,
    );
    expect((await ledger.list('s-append')).items).toHaveLength(1);
  });

  it('has only record and read operations', async () => {
    const ledger = await open();
    const methods = Object.keys(ledger).filter((k) => typeof (ledger as never)[k] === 'function');
    expect(methods.sort()).toEqual(['close', 'list', 'record']);
  });

  unstorableTextTests(open);
}
