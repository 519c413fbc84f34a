import type { ErrorBody as ContractErrorBody } from '@agentlane/contract';
import { escapeUnsafe, quote } from '@agentlane/contract/safe-text';
import { isDatabaseUnavailable } from '@agentlane/sql';
import { StoreError } from '@agentlane/store';

/** Every error the API returns, mapped to its HTTP status in one place. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  stale_generation: 409,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  /**
   * A per-token limit (request rate, open streams, concurrent runs) or an address refused for wrong bearer
   * tokens; `Retry-After` says when to retry.
   */
  rate_limited: 429,
  headers_too_large: 431,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The JSON body of every error response (the contract's ErrorBody) with a code of the table above. */
export interface ErrorBody extends ContractErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

// Re-exported: every route quotes and escapes through the one definition the CLI shares.
export { escapeUnsafe, quote };

export class HttpError extends Error {
  /** The input at fault, e.g. `body.engine` (unsafe characters escaped: it may hold a key the client sent). */
  readonly field?: string;

  constructor(
    readonly code: ErrorCode,
    // Escaped here, so no route can echo a control or bidi character of its input by accident.
    message: string,
    field?: string,
    /** Fields next to `error` in the body, e.g. the head a refused cursor can resume from. */
    readonly extra?: Readonly<Record<string, number | string>>,
    /** Sent as `Retry-After` (a limit, a database outage). */
    readonly retryAfterSeconds?: number,
  ) {
    super(escapeUnsafe(message));
    this.name = 'HttpError';
    if (field !== undefined) this.field = escapeUnsafe(field);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) },
      ...this.extra,
    };
  }
}

const STORE_CODES: Record<StoreError['code'], ErrorCode> = {
  not_found: 'not_found',
  conflict: 'conflict',
  source_sealed: 'conflict',
  stale_generation: 'stale_generation',
  idempotency_conflict: 'idempotency_conflict',
  invalid: 'invalid_request',
  unavailable: 'unavailable',
};

/** Seconds a client is told to wait (Retry-After) when the database is unavailable: a restart takes ~3 s. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * Turns anything thrown by a handler into an HttpError; unknown errors become a bare 500 (logged, not sent).
 * A database that cannot answer now (a restart, a dropped connection, a locked SQLite file that outlasted
 * the retries) is 503 `unavailable`, never 500: the request may simply be sent again.
 */
export function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof StoreError) {
    // A generation is only ever the request's `expectedGeneration`: name it, as the PUT route does.
    const field = err.code === 'stale_generation' ? 'body.expectedGeneration' : undefined;
    return new HttpError(STORE_CODES[err.code], err.message, field);
  }
  if (isDatabaseUnavailable(err))
    return new HttpError('unavailable', 'the database is unavailable; retry shortly');
  return null;
}

/** The code of a status from the table, for errors raised outside the routes (the framework, the HTTP parser). */
export function codeForStatus(status: number): ErrorCode {
  for (const [code, s] of Object.entries(ERROR_STATUS)) if (s === status) return code as ErrorCode;
  return status >= 500 ? 'internal' : 'invalid_request';
}

export const notFound = (what: string, id: string, field?: string): HttpError =>
  new HttpError('not_found', `${what} ${quote(id)} not found`, field);
