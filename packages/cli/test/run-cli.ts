import { spawn } from 'node:child_process';
import { agentlaneFromSource } from '@agentlane/test-engines';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** True when the process had to be killed: it hung. */
  killed: boolean;
}

/**
 * `agentlane ARGS` as its own process, from the sources, as a user runs it: its exit code and output. Killed
 * after `limitMs` (a hang is a failure the test reports, not a stuck test run).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, limitMs = 45_000): Promise<CliRun> {
  const child = spawn(process.execPath, agentlaneFromSource(args), {
    env: { ...process.env, AGENTLANE_URL: '', AGENTLANE_TOKEN: '', AGENTLANE_TIMEOUT_MS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let killed = false;
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limitMs);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, killed });
    }),
  );
}

/** A stack trace line, which a user error must never print. */
export const STACK_LINE = /^\s+at /m;
