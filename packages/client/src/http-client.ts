import type { ForkReply, ForkRequest, FramePage, StreamEvent } from '@agentlane/contract';
import type {
  AnswerResponse,
  ApprovalAnswer,
  ArtifactContent,
  CreateRunRequest,
  CreateSessionRequest,
  ExecuteRequest,
  HealthResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  QuestionAnswer,
  RunRecord,
  SessionRecord,
  SyncRequest,
  SyncResponse,
  UpdateSessionRequest,
} from './api-types.js';
import { CLIENT_ID_HEADER, clientIdOf } from './client-id.js';
import { apiErrorFrom } from './errors.js';
import { sseMessages } from './sse-reader.js';
import { parseStreamEvent } from './stream-event.js';
import { type SubscribeOptions, subscribeThread, type TransportOptions } from './subscribe-thread.js';

export interface ClientOptions {
  /** Server origin, e.g. `http://127.0.0.1:4000`; empty for same-origin in a browser. */
  url?: string;
  /** Route prefix; the contract's convention is `/api/harness`. */
  prefix?: string;
  token?: string;
  fetch?: typeof fetch;
  /**
   * How this client names itself to the server (`X-Agentlane-Client`, sent with every request): token-less local
   * clients get a stream budget per id. Default: a random id per client object.
   */
  clientId?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** Some servers wrap a resource (`{ run: {...} }`), some do not; accept both. */
function unwrap<T>(body: unknown, key: string): T {
  if (typeof body === 'object' && body !== null && key in body) {
    const inner = (body as Record<string, unknown>)[key];
    if (typeof inner === 'object' && inner !== null) return inner as T;
  }
  return body as T;
}

const id = (value: string) => encodeURIComponent(value);

/** A typed client for every `/api/harness` route. */
export class AgentlaneClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly doFetch: typeof fetch;
  readonly clientId: string;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = `${(options.url ?? '').replace(/\/$/, '')}${options.prefix ?? '/api/harness'}`;
    this.token = options.token;
    this.doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.clientId = clientIdOf(options.clientId);
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { ...extra, [CLIENT_ID_HEADER]: this.clientId };
    if (this.token) headers['authorization'] = `Bearer ${this.token}`;
    return headers;
  }

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
    options: RequestOptions & { headers?: Record<string, string> } = {},
  ): Promise<T> {
    const headers = this.headers({ accept: 'application/json', ...options.headers });
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.doFetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });
    if (!response.ok) throw await apiErrorFrom(response);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  // ------------------------------------------------------------ sessions

  listSessions(query: ListSessionsQuery = {}, options?: RequestOptions): Promise<ListSessionsResponse> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const qs = params.toString();
    return this.request('GET', `/sessions${qs ? `?${qs}` : ''}`, undefined, options);
  }

  async createSession(body: CreateSessionRequest, options?: RequestOptions): Promise<SessionRecord> {
    return unwrap(await this.request('POST', '/sessions', body, options), 'session');
  }

  async getSession(sessionId: string, options?: RequestOptions): Promise<SessionRecord> {
    return unwrap(await this.request('GET', `/sessions/${id(sessionId)}`, undefined, options), 'session');
  }

  async updateSession(
    sessionId: string,
    body: UpdateSessionRequest,
    options?: RequestOptions,
  ): Promise<SessionRecord> {
    return unwrap(await this.request('PUT', `/sessions/${id(sessionId)}`, body, options), 'session');
  }

  async deleteSession(sessionId: string, options?: RequestOptions): Promise<void> {
    await this.request('DELETE', `/sessions/${id(sessionId)}`, undefined, options);
  }

  /** One sync request: its answer may be a page (`more`); `syncSessionAll` follows the pages. */
  syncSession(sessionId: string, body: SyncRequest, options?: RequestOptions): Promise<SyncResponse> {
    return this.request('POST', `/sessions/${id(sessionId)}/sync`, body, options);
  }

  /**
   * A sync that follows the answer's pages: the server answers a page of about 1 MiB at a time (`more`), so
   * each request stays cheap however many changes the session holds. Sends `body` once, then syncs again
   * with the merged vector and `cursor` while `more`; returns every page's changes and conflicts and the last
   * vector, as one answer without `more`.
   */
  async syncSessionAll(
    sessionId: string,
    body: SyncRequest,
    options?: RequestOptions,
  ): Promise<SyncResponse> {
    let page = await this.syncSession(sessionId, body, options);
    const changes = [...page.changes];
    const conflicts = [...page.conflicts];
    while (page.more) {
      const cursor = page.cursor;
      const vector = page.vector;
      page = await this.syncSession(
        sessionId,
        { clientId: body.clientId, vector, changes: [], ...(cursor === undefined ? {} : { cursor }) },
        options,
      );
      // Every page moves the vector or the cursor on; one that moves neither would repeat forever.
      if (page.more && page.changes.length === 0 && page.cursor === cursor && sameVector(page.vector, vector))
        throw new Error('sync: the server answered the same page again');
      changes.push(...page.changes);
      conflicts.push(...page.conflicts);
    }
    return { vector: page.vector, changes, conflicts };
  }

  /**
   * Time travel: a new thread (same engine and folder) continuing from one of the session's root checkpoints
   * (`{checkpointId}`) or after a finished run, forked by the engine itself (`{runId}`).
   */
  forkSession(sessionId: string, body: ForkRequest, options?: RequestOptions): Promise<ForkReply> {
    return this.request('POST', `/sessions/${id(sessionId)}/fork`, body, options);
  }

  /** One page of a run's native frames (its source lane) with their raw sidecar, in nativeSeq order. */
  listFrames(
    sessionId: string,
    runId: string,
    query: { after?: number; limit?: number } = {},
    options?: RequestOptions,
  ): Promise<FramePage> {
    const params = new URLSearchParams();
    if (query.after !== undefined) params.set('after', String(query.after));
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    const qs = params.toString();
    const path = `/sessions/${id(sessionId)}/runs/${id(runId)}/frames${qs ? `?${qs}` : ''}`;
    return this.request('GET', path, undefined, options);
  }

  /**
   * Starts a run on the session and yields its StreamEvents until the run settles. Not resumable by
   * itself: after a drop, follow the thread with `subscribeThread(threadId, { after })`.
   */
  async *execute(
    sessionId: string,
    body: ExecuteRequest,
    options: RequestOptions = {},
  ): AsyncGenerator<StreamEvent> {
    const response = await this.doFetch(`${this.baseUrl}/sessions/${id(sessionId)}/execute`, {
      method: 'POST',
      headers: this.headers({ accept: 'text/event-stream', 'content-type': 'application/json' }),
      body: JSON.stringify(body),
      signal: options.signal,
    });
    if (!response.ok || !response.body) throw await apiErrorFrom(response);
    for await (const message of sseMessages(response.body)) {
      const event = parseStreamEvent(message.data);
      if (event) yield event;
    }
  }

  health(options?: RequestOptions): Promise<HealthResponse> {
    return this.request('GET', '/health', undefined, options);
  }

  openapi(options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.request('GET', '/openapi.json', undefined, options);
  }

  // ------------------------------------------------------------ threads and runs

  subscribeThread(threadId: string, options?: SubscribeOptions): AsyncGenerator<StreamEvent> {
    const transport: TransportOptions = {
      baseUrl: this.baseUrl,
      token: this.token,
      fetch: this.doFetch,
      clientId: this.clientId,
    };
    return subscribeThread(transport, threadId, options);
  }

  /** `run.create`. The idempotency key makes a retried create return the same run instead of a second one. */
  async createRun(
    threadId: string,
    body: CreateRunRequest,
    options: RequestOptions & { idempotencyKey?: string } = {},
  ): Promise<RunRecord> {
    const headers: Record<string, string> = {};
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    return unwrap(
      await this.request('POST', `/threads/${id(threadId)}/runs`, body, { ...options, headers }),
      'run',
    );
  }

  /** `run.cancel`. */
  async cancelRun(runId: string, options?: RequestOptions): Promise<RunRecord> {
    return unwrap(await this.request('POST', `/runs/${id(runId)}/cancel`, {}, options), 'run');
  }

  async getRun(runId: string, options?: RequestOptions): Promise<RunRecord> {
    return unwrap(await this.request('GET', `/runs/${id(runId)}`, undefined, options), 'run');
  }

  answerApproval(
    runId: string,
    approvalId: string,
    body: ApprovalAnswer,
    options?: RequestOptions,
  ): Promise<AnswerResponse> {
    return this.request('POST', `/runs/${id(runId)}/approvals/${id(approvalId)}`, body, options);
  }

  answerQuestion(
    runId: string,
    questionId: string,
    body: QuestionAnswer,
    options?: RequestOptions,
  ): Promise<AnswerResponse> {
    return this.request('POST', `/runs/${id(runId)}/questions/${id(questionId)}`, body, options);
  }

  // ------------------------------------------------------------ artifacts

  artifactUrl(artifactId: string): string {
    return `${this.baseUrl}/artifacts/${id(artifactId)}`;
  }

  /** The full content of an artifact; `range` asks for a byte range (`{ start, end }` inclusive). */
  async getArtifact(
    artifactId: string,
    options: RequestOptions & { range?: { start: number; end?: number } } = {},
  ): Promise<ArtifactContent> {
    const headers = this.headers();
    if (options.range) headers['range'] = `bytes=${options.range.start}-${options.range.end ?? ''}`;
    const response = await this.doFetch(this.artifactUrl(artifactId), { headers, signal: options.signal });
    if (!response.ok) throw await apiErrorFrom(response);
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      etag: response.headers.get('etag') ?? undefined,
      bytes,
      text: () => new TextDecoder().decode(bytes),
    };
  }
}

const sameVector = (a: Record<string, number>, b: Record<string, number>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, n]) => b[k] === n);
