import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientCommand, ClientReport } from './load-client';

const here = dirname(fileURLToPath(import.meta.url));

/** The parent side of the load client process. */
export class LoadClient {
  readonly #child: ChildProcess;
  readonly #queue: ClientReport[] = [];
  #waiter: ((r: ClientReport) => void) | null = null;

  constructor() {
    this.#child = fork(join(here, 'load-client.ts'), [], {
      execArgv: ['--conditions=agentlane-source', '--import', 'tsx'],
      stdio: 'inherit',
    });
    this.#child.on('message', (m: ClientReport) => {
      if (this.#waiter) {
        const w = this.#waiter;
        this.#waiter = null;
        w(m);
      } else this.#queue.push(m);
    });
  }

  send(cmd: ClientCommand): void {
    this.#child.send(cmd);
  }

  async next<T extends ClientReport['type']>(
    type: T,
    timeoutMs = 180_000,
  ): Promise<Extract<ClientReport, { type: T }>> {
    const report =
      this.#queue.shift() ??
      (await new Promise<ClientReport>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`load client: no ${type} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        this.#waiter = (r) => {
          clearTimeout(timer);
          resolve(r);
        };
      }));
    if (report.type === 'error') throw new Error(`load client: ${report.message}`);
    if (report.type !== type) throw new Error(`load client: expected ${type}, got ${report.type}`);
    return report as Extract<ClientReport, { type: T }>;
  }

  async close(): Promise<void> {
    this.send({ type: 'close' });
    await this.next('closed');
  }

  kill(): void {
    this.#child.kill();
  }
}
