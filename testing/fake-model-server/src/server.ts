import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerAuxiliary, answerModel, json } from './answer';
import { readJsonBody, recordRequest } from './record';
import { toolThenAnswer, writeFileTool } from './scenarios';
import type { ModelReply, RecordedRequest, Scenario } from './types';

export interface FakeModelServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Decides each reply; defaults to "call one tool (write hello.txt in the cwd), then answer". */
  scenario?: Scenario;
  /** Replies in order instead of a scenario; the last one repeats. */
  script?: ModelReply[];
}

export interface FakeModelServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:40123 (append /v1 for OpenAI clients). */
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Model requests only (the four provider APIs), in order. */
  modelRequests(): RecordedRequest[];
  setScenario(scenario: Scenario | ModelReply[]): void;
  close(): Promise<void>;
}

/** Answers each request from the current scenario, recording it first; a handler that throws answers 500. */
function requestListener(requests: RecordedRequest[], scenario: () => Scenario) {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const read = await readJsonBody(req);
    if (read === 'invalid') {
      return json(res, 400, {
        error: { message: 'request body is not JSON', type: 'invalid_request_error' },
      });
    }
    const recorded = recordRequest(req, url, read.body, requests.length + 1);
    requests.push(recorded);
    if (recorded.api === 'unknown') return answerAuxiliary(res, recorded.method, url.pathname);
    return answerModel(res, recorded, scenario()(recorded));
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  };
}

export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  let scenario: Scenario = options.script
    ? scriptScenario(options.script)
    : (options.scenario ?? toolThenAnswer({ tool: writeFileTool(`${process.cwd()}/hello.txt`, 'hello\n') }));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(requestListener(requests, () => scenario));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    modelRequests: () => requests.filter((r) => r.api !== 'unknown'),
    setScenario(next) {
      scenario = Array.isArray(next) ? scriptScenario(next) : next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function scriptScenario(replies: ModelReply[]): Scenario {
  let next = 0;
  return () => {
    const reply = replies[Math.min(next, replies.length - 1)] ?? { text: '' };
    next += 1;
    return reply;
  };
}
