import type { CheckpointList, CheckpointSummary } from '@agentlane/contract';
import { escapeUnsafe, printable } from '../cli-error.js';
import { createProgress } from '../progress.js';

export interface CheckpointsCommandOptions {
  /** Base URL of a running agentlane server, e.g. http://127.0.0.1:7433. */
  server: string;
  session: string;
  /** Print this checkpoint's hydrated envelope instead of the list. */
  id?: string;
  token?: string;
  /** Page size of the list (1..1000); all pages are printed. */
  limit?: number;
  /** Print JSON (the list replies or the envelope) instead of a table. */
  json?: boolean;
  fetch?: typeof fetch;
  write?: (line: string) => void;
  /** Progress lines (stderr by default), shown once paging through the list takes more than a second. */
  progress?: (line: string) => void;
  /** How often progress may print (ms; default 1000). */
  progressIntervalMs?: number;
}

/** Raised for an HTTP error; the CLI prints `message` and exits non-zero. */
export class CheckpointsCommandError extends Error {
  override readonly name = 'CheckpointsCommandError';
}

function table(rows: readonly CheckpointSummary[]): string[] {
  const head = ['CHECKPOINT', 'STAGE', 'CREATED', 'STORAGE', 'BYTES', 'PINNED', 'NAMESPACE', 'PARENT'];
  const body = rows.map((r) =>
    [
      r.checkpointId,
      r.stageId,
      r.createdAt,
      r.storage,
      String(r.bytes),
      r.pinned ? 'yes' : '',
      r.namespace,
      r.parentCheckpointId ?? '',
    ].map(escapeUnsafe),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  return [head, ...body].map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * `agentlane checkpoints SESSION [--id ID]`: reads the checkpoint routes of a running server and prints
 * the session's checkpoints (newest first) or one hydrated envelope.
 */
export async function runCheckpointsCommand(options: CheckpointsCommandOptions): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = `${options.server.replace(/\/+$/, '')}/api/harness/sessions/${encodeURIComponent(options.session)}/checkpoints`;
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const getJson = async (url: string): Promise<unknown> => {
    let res: Response;
    try {
      res = await doFetch(url, { headers });
    } catch (error) {
      throw new CheckpointsCommandError(`cannot reach ${options.server}: ${(error as Error).message}`);
    }
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok) {
      throw new CheckpointsCommandError(`HTTP ${res.status}: ${body?.error?.message ?? res.statusText}`);
    }
    return body;
  };

  if (options.id !== undefined) {
    const envelope = await getJson(`${base}/${encodeURIComponent(options.id)}`);
    write(JSON.stringify(envelope, null, 2));
    return;
  }
  const rows: CheckpointSummary[] = [];
  let cursor: string | null = null;
  const progress = createProgress(`agentlane checkpoints ${options.session}`, 'checkpoints read', {
    ...(options.progress ? { write: options.progress } : {}),
    ...(options.progressIntervalMs !== undefined ? { intervalMs: options.progressIntervalMs } : {}),
  });
  do {
    const query = new URLSearchParams({ limit: String(options.limit ?? 200) });
    if (cursor) query.set('cursor', cursor);
    const page = (await getJson(`${base}?${query}`)) as CheckpointList;
    if (options.json) write(JSON.stringify(page));
    rows.push(...page.checkpoints);
    cursor = page.nextCursor;
    progress.update(rows.length);
  } while (cursor);
  progress.finish(`${rows.length.toLocaleString('en-US')} checkpoints read`);
  if (options.json) return;
  if (rows.length === 0) {
    write(`session ${printable(options.session)} has no checkpoints`);
    return;
  }
  for (const line of table(rows)) write(line);
}
