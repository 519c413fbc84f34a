import { Readable, Writable } from 'node:stream';
import {
  type ClientConnection,
  client,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { JsonValue } from '@agentlane/contract';
import type { OwnedProcess } from '@agentlane/engine-kit';
import { type NdJsonHooks, type RecordWire, recordedNdJsonStream } from './ndjson.js';

export type { WireDirection } from './ndjson.js';

export interface AcpWireHandlers {
  /** Every JSON-RPC message in both directions, in wire order, before it is dispatched or sent, with its line. */
  record: RecordWire;
  /** session/request_permission: the answer goes back to the agent (a null id is the handler's to refuse). */
  requestPermission(
    params: RequestPermissionRequest,
    requestId: string | number | null,
  ): Promise<RequestPermissionResponse>;
  /** Lines that are no JSON object, and the end (or failure) of the agent's output. */
  wire?: NdJsonHooks;
}

/**
 * A session/update notification: recorded, never handed to the SDK. Its session router parses each against
 * the ACP schema before any handler (agentlane's did nothing with them) and prints a line (console.error
 * "Error handling notification") for each one that fails: an agent sending thousands of malformed updates
 * flooded the server's log. agentlane uses no SDK session object that would read them.
 */
function isUpdate(msg: JsonValue): boolean {
  return typeof msg === 'object' && msg !== null && !Array.isArray(msg) && msg.method === 'session/update';
}

/** Connects an ACP client (agentlane) to an engine process over its stdio. */
export function connectAcp(engine: OwnedProcess, handlers: AcpWireHandlers): ClientConnection {
  const child = engine.child;
  if (!child.stdin || !child.stdout) throw new Error('the engine process has no stdio pipes');
  // A write to a dead engine must not crash the harness; the exit is reported separately.
  child.stdin.on('error', () => undefined);
  const stream = recordedNdJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
    (dir, msg, raw) =>
      handlers.record(dir, msg, raw) !== false && !(dir === 'agent->client' && isUpdate(msg)),
    handlers.wire,
  );
  const app = client({ name: 'agentlane' })
    .onRequest('session/request_permission', ({ params, requestId }) =>
      handlers.requestPermission(params, requestId ?? null),
    )
    // Recording happens in the stream; the translator reads the notifications from the stored frames.
    // session/update does not even reach the SDK (see isUpdate); the rest end here.
    .onRequest('*', ({ method }) => {
      // fs/* and terminal/* are not advertised, so an agent asking for them gets a clear refusal.
      throw RequestError.methodNotFound(method);
    })
    .onNotification('*', () => undefined);
  return app.connect(stream);
}
