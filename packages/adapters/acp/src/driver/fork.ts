import { existsSync } from 'node:fs';
import { cp, lstat, rm } from 'node:fs/promises';
import {
  asString,
  ForkRefusedError,
  type ForkSessionRequest,
  type SessionBinding,
} from '@agentlane/engine-kit';
import type { AcpEngineConfig } from './config.js';
import { newEngineHome } from './engine-process.js';

/** Runtime binding keys: whether the agent advertised session/fork, and the session a fork starts from. */
export const SESSION_FORK = 'sessionFork';
export const FORK_OF = 'forkOf';

/**
 * Time travel for an ACP agent that advertises `sessionCapabilities.fork`. The protocol's session/fork has
 * no message point (it forks the session as it stands), so only the thread's latest run is a fork point.
 * The engine keeps its sessions in the thread's HOME: that HOME is copied now, which freezes the fork
 * point (turns the origin makes later land in its own HOME, not the copy), and the new thread's first
 * open starts the agent in the copy and asks it for session/fork of the origin's session (handshake.ts).
 */
export async function forkAcpSession(
  config: AcpEngineConfig,
  request: ForkSessionRequest,
): Promise<SessionBinding> {
  const { source, point } = request;
  if (source.runtimeBinding[SESSION_FORK] !== true) {
    throw new ForkRefusedError(`${config.name} did not advertise session/fork when its session started`);
  }
  if (!point.atEnd) {
    throw new ForkRefusedError(
      `ACP's session/fork has no message point: ${config.name} forks only after the thread's latest run`,
    );
  }
  const sourceId = source.nativeSessionId;
  const home = asString(source.runtimeBinding.home);
  if (!sourceId || !home || !existsSync(home)) {
    throw new ForkRefusedError(`the ${config.name} session has no native session or HOME left to fork`);
  }
  const copy = await newEngineHome(config);
  try {
    // Sockets and other special files (a running engine's IPC) are not state: only files, folders, links.
    await cp(home, copy, {
      recursive: true,
      verbatimSymlinks: true,
      filter: async (path) => {
        const stat = await lstat(path);
        return stat.isFile() || stat.isDirectory() || stat.isSymbolicLink();
      },
    });
  } catch (error) {
    await rm(copy, { recursive: true, force: true });
    throw error;
  }
  return {
    provider: source.provider,
    nativeSessionId: null,
    runtimeBinding: { home: copy, [FORK_OF]: sourceId },
    protocolVersion: source.protocolVersion,
    capabilities: source.capabilities,
  };
}
