/**
 * An error body as read: the server's (the contract's ErrorBody), or the flatter forms other servers and
 * proxies send.
 */
interface ReadErrorBody {
  error?: { code?: string; message?: string; field?: string } | string;
  code?: string;
  message?: string;
  field?: string;
}

/** A non-2xx answer from the server, with the field it names when it names one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly body?: unknown,
  ) {
    super(message);
  }

  /** 4xx other than timeouts and rate limits: retrying the same request cannot help. */
  get permanent(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 408 && this.status !== 429;
  }
}

export async function apiErrorFrom(response: Response): Promise<ApiError> {
  let body: unknown;
  const text = await response.text().catch(() => '');
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as ReadErrorBody;
  const inner = typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : undefined;
  const code = inner?.code ?? parsed.code ?? `http_${response.status}`;
  const message =
    inner?.message ??
    parsed.message ??
    (typeof parsed.error === 'string' ? parsed.error : undefined) ??
    (typeof body === 'string' && body ? body : `HTTP ${response.status}`);
  return new ApiError(response.status, code, message, inner?.field ?? parsed.field, body);
}
