import { Readable, Writable } from 'node:stream';
import {
  type AnyMessage,
  type ClientConnection,
  client,
  ndJsonStream,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type Stream,
} from '@agentclientprotocol/sdk';
import type { JsonValue } from '@agentlane/contract';
import type { OwnedProcess } from '@agentlane/engine-kit';

export type WireDirection = 'agent->client' | 'client->agent';

export interface AcpWireHandlers {
  /** Every JSON-RPC message in both directions, in wire order, before it is dispatched or sent. */
  record(dir: WireDirection, msg: JsonValue): void;
  /** session/request_permission: the answer goes back to the agent. */
  requestPermission(
    params: RequestPermissionRequest,
    requestId: string | number,
  ): Promise<RequestPermissionResponse>;
}

/**
 * Wraps the SDK's ndjson stream so every message is recorded as it crosses the wire: incoming before the
 * SDK dispatches it, outgoing before it is written. The recorded order is the order the engine saw.
 */
function recordedStream(base: Stream, record: AcpWireHandlers['record']): Stream {
  const incoming = new TransformStream<AnyMessage, AnyMessage>({
    transform(msg, controller) {
      record('agent->client', msg as unknown as JsonValue);
      controller.enqueue(msg);
    },
  });
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(msg, controller) {
      record('client->agent', msg as unknown as JsonValue);
      controller.enqueue(msg);
    },
  });
  void outgoing.readable.pipeTo(base.writable).catch(() => undefined);
  return { readable: base.readable.pipeThrough(incoming), writable: outgoing.writable };
}

/** Connects an ACP client (agentlane) to an engine process over its stdio. */
export function connectAcp(engine: OwnedProcess, handlers: AcpWireHandlers): ClientConnection {
  const child = engine.child;
  if (!child.stdin || !child.stdout) throw new Error('the engine process has no stdio pipes');
  // A write to a dead engine must not crash the harness; the exit is reported separately.
  child.stdin.on('error', () => undefined);
  const base = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
  );
  const app = client({ name: 'agentlane' })
    .onRequest('session/request_permission', ({ params, requestId }) =>
      handlers.requestPermission(params, requestId ?? 'null'),
    )
    // Recording happens in the stream; the translator reads the notifications from the stored frames.
    .onNotification('session/update', () => undefined)
    .onRequest('*', ({ method }) => {
      // fs/* and terminal/* are not advertised, so an agent asking for them gets a clear refusal.
      throw RequestError.methodNotFound(method);
    })
    .onNotification('*', () => undefined);
  return app.connect(recordedStream(base, handlers.record));
}
