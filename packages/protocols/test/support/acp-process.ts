import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { agentlaneFromSource } from '@agentlane/test-engines';

/**
 * `agentlane acp` as its own process, driven by the SDK's client side over its stdio. Permission requests
 * are answered with their first option of kind `allow_once` (else the first) and kept in `asked`.
 */
export function spawnAcp(args: string[]) {
  const child = spawn(process.execPath, agentlaneFromSource(['acp', ...args]), {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  const conn = client({ name: 'test-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', ({ params }) => {
      asked.push(params);
      const option = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0];
      return { outcome: { outcome: 'selected', optionId: option?.optionId ?? '' } };
    })
    .connect(
      ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
      ),
    );
  return { child, conn, updates, asked, stderr: () => stderr };
}

/** SIGKILL, like a crash; resolves once the process is gone. */
export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
