import type { CheckpointList, CheckpointSummary } from '@agentlane/contract';
import { escapeUnsafe, printable } from '../cli-error.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, getJson, isObject } from '../http-json.js';
import { forEachPage, nextCursorOf } from '../paging.js';
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
  /** How long one request may take (ms; default 30 s). */
  timeoutMs?: number;
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

const notAgentlane = (server: string, what: string) =>
  new CheckpointsCommandError(`${server} did not answer with ${what}; is it an agentlane server?`);

const isSummary = (row: unknown): row is CheckpointSummary =>
  isObject(row) &&
  ['checkpointId', 'stageId', 'createdAt', 'storage', 'namespace'].every((k) => typeof row[k] === 'string') &&
  typeof row.bytes === 'number';

/** One list page, checked: another server's 200 (`{}`, an HTML page) must not crash or pass as empty. */
function checkedList(body: unknown, server: string): CheckpointList {
  const cursor = isObject(body) ? nextCursorOf(body) : undefined;
  if (
    !isObject(body) ||
    !Array.isArray(body.checkpoints) ||
    !body.checkpoints.every(isSummary) ||
    cursor === undefined
  )
    throw notAgentlane(server, 'a checkpoint list ({checkpoints: [...], nextCursor})');
  return { checkpoints: body.checkpoints, nextCursor: cursor };
}

/** One hydrated checkpoint, checked the same way (its id and channels at least). */
function checkedEnvelope(body: unknown, server: string): Record<string, unknown> {
  if (!isObject(body) || typeof body.id !== 'string' || !isObject(body.channels))
    throw notAgentlane(server, 'a checkpoint ({id, channels, ...})');
  return body;
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
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = `${options.server.replace(/\/+$/, '')}/api/harness/sessions/${encodeURIComponent(options.session)}/checkpoints`;
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const fetchBody = async (url: string): Promise<unknown> => {
    const { res, body } = await getJson(url, {
      server: options.server,
      headers,
      timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      fail: (message) => new CheckpointsCommandError(message),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    if (!res.ok) {
      const message = isObject(body) && isObject(body.error) ? body.error.message : undefined;
      throw new CheckpointsCommandError(
        `HTTP ${res.status}: ${typeof message === 'string' ? message : res.statusText}`,
      );
    }
    return body;
  };

  if (options.id !== undefined) {
    const envelope = await fetchBody(`${base}/${encodeURIComponent(options.id)}`);
    write(JSON.stringify(checkedEnvelope(envelope, options.server), null, 2));
    return;
  }
  const rows: CheckpointSummary[] = [];
  const progress = createProgress(`agentlane checkpoints ${options.session}`, 'checkpoints read', {
    ...(options.progress ? { write: options.progress } : {}),
    ...(options.progressIntervalMs !== undefined ? { intervalMs: options.progressIntervalMs } : {}),
  });
  const fetchPage = async (cursor: string | null) => {
    const query = new URLSearchParams({ limit: String(options.limit ?? 200) });
    if (cursor) query.set('cursor', cursor);
    return checkedList(await fetchBody(`${base}?${query}`), options.server);
  };
  await forEachPage(
    fetchPage,
    (page) => {
      if (options.json) write(JSON.stringify(page));
      rows.push(...page.checkpoints);
      progress.update(rows.length);
      return page.checkpoints.length;
    },
    (cursor) =>
      new CheckpointsCommandError(
        `${options.server} repeated the cursor ${JSON.stringify(cursor)}; stopped paging`,
      ),
    (pages) =>
      new CheckpointsCommandError(`${options.server} sent ${pages} empty pages in a row; stopped paging`),
  );
  progress.finish(`${rows.length.toLocaleString('en-US')} checkpoints read`);
  if (options.json) return;
  if (rows.length === 0) {
    write(`session ${printable(options.session)} has no checkpoints`);
    return;
  }
  for (const line of table(rows)) write(line);
}
