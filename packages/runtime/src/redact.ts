import type { JsonObject, JsonValue } from '@agentlane/contract';
import { SecretRedactor, secretsFromEnv } from '@agentlane/engine-kit';
import { DeltaRedaction } from './delta-redaction.js';

/** Types of the AI SDK's stream parts that carry an error's text. */
const ERROR_PARTS = new Set(['error', 'tool-error']);

/**
 * Keeps the engine's secrets out of what leaves the runtime from a model call: a model server (or a proxy in
 * front of it) may echo the request, Authorization header included, in an error body, an SSE error event or a
 * chunk the SDK cannot parse (and quotes). The key values the engine was configured with are replaced wherever
 * they occur in what the model sent (text, reasoning, tool input, errors); an error's text also loses any
 * credential in header form (whatever key it is). The one redactor of engine-kit does the work, in two modes.
 */
export class Redactor {
  private readonly values: SecretRedactor;
  private readonly errors: SecretRedactor;

  constructor(secrets: readonly string[]) {
    this.values = new SecretRedactor(secrets, { headers: false });
    this.errors = new SecretRedactor(secrets, { errorText: true });
  }

  /** Redacts one call's streamed deltas across their pieces (see DeltaRedaction). */
  deltas(): DeltaRedaction {
    return new DeltaRedaction(this.values);
  }

  /** Text from the model server: each secret's value replaced wherever it occurs. */
  text(s: string): string {
    return this.values.text(s);
  }

  /** An error's text: the secrets' values, then every credential in header form. */
  error(s: string): string {
    return this.errors.text(s);
  }

  /** A stream part as the runtime emits it (see safePart): every string redacted, error text as errors. */
  part(part: JsonObject): JsonObject {
    if (typeof part.type === 'string' && ERROR_PARTS.has(part.type))
      return this.errors.json(part) as JsonObject;
    if (this.values.size === 0) return part;
    return this.values.json(part) as JsonObject;
  }

  /** Every string of a JSON value (object keys included) with the secrets' values replaced. */
  json(v: JsonValue): JsonValue {
    return this.values.json(v);
  }
}

/**
 * What a tool's result is kept as in the conversation (the checkpoint, what the model reads next): the
 * engine's keys and every credential the process's environment holds (secretsFromEnv) replaced, as the lane
 * replaces them in the tool.completed event made of it. A command that prints a key must not leave it in the
 * checkpoint that the event left out. Values only: a header-shaped text in a file the model reads
 * (`api_key=...` in a config) stays, or the model could not edit the file it was shown.
 */
export function toolResultRedactor(secrets: readonly string[]): SecretRedactor {
  return new SecretRedactor([...secrets, ...secretsFromEnv(process.env)], { headers: false });
}

/**
 * What a command's terminal output is redacted with, across its chunks (TerminalRedaction): the engine's keys
 * and every credential the process's environment holds, as toolResultRedactor, and header-shaped credentials
 * too. The output shown is not what the model reads (that is the result), and the lane redacts each
 * terminal.output event's headers alike; this catches what a chunk boundary splits.
 */
export function terminalRedactor(secrets: readonly string[]): SecretRedactor {
  return new SecretRedactor([...secrets, ...secretsFromEnv(process.env)]);
}
