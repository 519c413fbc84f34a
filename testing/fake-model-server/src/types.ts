/** Which provider wire format a request used; each has its own encoder. */
export type ModelApi = 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini' | 'unknown';

/** One tool call the fake model makes. `arguments` is sent as the provider's JSON arguments. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Freeform input for a custom tool (OpenAI Responses `custom_tool_call`, e.g. Codex's apply_patch).
   * When set, the Responses API sends a custom tool call instead of a function call.
   */
  input?: string;
  /** Stable id for the call; generated from the request number when absent. */
  id?: string;
  /** Characters per streamed piece of the JSON arguments (default 20; Chat Completions and Anthropic). */
  argumentsChunkSize?: number;
}

/** A provider error answered instead of a stream (status 400 by default, which no SDK retries). */
export interface FakeProviderError {
  status?: number;
  message: string;
  /** Provider error type, e.g. `invalid_request_error`. */
  type?: string;
  /** A `Retry-After` header on the error (seconds, or an HTTP date), as rate limits send it. */
  retryAfter?: string;
}

/** How a stream misbehaves, for the tests of a client against a hostile model server. */
export interface StreamMisbehaviour {
  /** Wait this long before the response headers. */
  headersDelayMs?: number;
  /** Send only the first N frames, then end the response cleanly (a stream cut short; no final event). */
  truncateAfter?: number;
  /** After N frames send nothing more and keep the connection open until the client goes away. */
  stallAfter?: number;
  /** While stalled, a keep-alive every this many ms: an SSE comment (Anthropic: a `ping` event). */
  keepAliveMs?: number;
  /**
   * No usage at all: Chat Completions sends no usage chunk even when asked for one, Responses a
   * response.completed without `usage`, Anthropic no `usage` on message_start / message_delta, Gemini no
   * `usageMetadata`.
   */
  omitUsage?: boolean;
}

/** What the fake model answers to one request. */
export interface ModelReply {
  reasoning?: string;
  text?: string;
  toolCalls?: FakeToolCall[];
  error?: FakeProviderError;
  /** Characters per streamed delta (default 12). */
  chunkSize?: number;
  /** Pause between streamed frames, for the slow-stream scenario (default 0). */
  chunkDelayMs?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  misbehave?: StreamMisbehaviour;
}

/** A request as the fake server recorded it, with what it understood of the history. */
export interface RecordedRequest {
  /** 1-based arrival order across the server's life. */
  index: number;
  api: ModelApi;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** The model id the request named. */
  model?: string;
  /** Names of the tools the request offered. */
  toolNames: string[];
  /**
   * Tool results in the history after the last real user prompt. The "call one tool, then answer"
   * scenario decides turn 2 by this, not by the last history item (Codex appends developer messages
   * after a tool output).
   */
  toolResultsSinceUserPrompt: number;
  /** The text of the last real user prompt in the history. */
  lastUserPrompt?: string;
}

/** Decides the reply to one request. */
export type Scenario = (request: RecordedRequest) => ModelReply;
