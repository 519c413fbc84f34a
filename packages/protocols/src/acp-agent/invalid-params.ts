import { RequestError } from '@agentclientprotocol/sdk';

/**
 * A refusal of the backend (the local server's HttpError or the HTTP client's ApiError, both with a status)
 * as -32602 when it is about the request (400 / 422), naming the field; anything else stays an internal error.
 */
export function asInvalidParams(error: unknown, param = 'params'): RequestError | undefined {
  const e = error as { status?: unknown; message?: unknown; field?: unknown; code?: unknown } | null;
  // The local store refuses a cursor it did not issue as StoreError 'invalid' (no HTTP status).
  const refused = e?.status === 400 || e?.status === 422 || e?.code === 'invalid';
  if (!e || !refused) return undefined;
  const field = typeof e.field === 'string' ? e.field.replace(/^(body|query)\./, '') : param;
  return RequestError.invalidParams({ [field]: String(e.message) });
}
