import pg from 'pg';
import { APPLICATION_NAME, pgSessionOptions } from './pg-pool.js';
import { quoteIdent } from './url.js';

export interface PgListenerOptions {
  url: string;
  schema?: string;
  channels: readonly string[];
  onNotification(channel: string, payload: string): void;
  /**
   * Called each time LISTEN is (re)established after the first: notifications sent while the connection was
   * down are lost, so the owner catches up from the tables.
   */
  onReconnect?(): void;
  /** Called each time LISTEN is established, the first time included. */
  onListening?(): void;
}

export interface PgListener {
  /**
   * Resolves once LISTEN is first established: a notification sent after that is heard (or, if the
   * connection is lost later, followed by `onReconnect`). Never rejects; pending until then.
   */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2000;

/**
 * A dedicated LISTEN connection that comes back by itself: when it errors or ends (a restart, a terminated
 * backend) it is replaced after a short, growing pause until `close()`. No error ever leaves it.
 */
export function createPgListener(options: PgListenerOptions): PgListener {
  let client: pg.Client | null = null;
  let closed = false;
  let connectedOnce = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | null = null;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const schedule = (): void => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      start();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
  };

  const start = (): void => {
    if (closed || client) return;
    const c = new pg.Client({
      connectionString: options.url,
      options: pgSessionOptions(options.schema),
      application_name: `${APPLICATION_NAME}-listen`,
    });
    client = c;
    const lost = (): void => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => {});
      schedule();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (message) => {
      if (message.payload !== undefined) options.onNotification(message.channel, message.payload);
    });
    c.connect()
      .then(() => c.query(options.channels.map((ch) => `LISTEN ${quoteIdent(ch)}`).join('; ')))
      .then(() => {
        if (client !== c) return;
        retryMs = FIRST_RETRY_MS;
        if (connectedOnce) options.onReconnect?.();
        connectedOnce = true;
        markReady();
        options.onListening?.();
      })
      .catch(lost);
  };

  start();
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
