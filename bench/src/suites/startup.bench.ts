import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../types';

/**
 * How long `agentlane serve` takes from `node` starting to "listening on": the compiled CLI (dist/, what
 * `npm start` and `npx agentlane` run) next to the same server from its TypeScript sources through tsx (how
 * the CLI ran before). Each is started once to warm up (database created, tsx's transform cache and the
 * page cache filled), then `STARTUP_RUNS` times on that data folder; medians compared.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const runs = Number(process.env.STARTUP_RUNS ?? 7);

/** The compiled server must not inherit the source condition this bench itself runs with. */
function compiledEnv(): NodeJS.ProcessEnv {
  const nodeOptions = (process.env.NODE_OPTIONS ?? '').replace(/--conditions=agentlane-source/g, '').trim();
  return { ...process.env, NODE_OPTIONS: nodeOptions };
}

const modes = {
  compiled: { args: [join(root, 'packages/cli/bin/agentlane.mjs')], env: compiledEnv },
  tsx: {
    args: ['--conditions=agentlane-source', '--import', 'tsx', join(root, 'packages/cli/src/main.ts')],
    env: () => process.env,
  },
} as const;

/**
 * CPU milliseconds (user + system) the process has used so far, from /proc (Linux; null elsewhere): on a
 * loaded machine the wall time mostly measures the other processes, the CPU time does not.
 */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return null;
  }
}

interface Start {
  wallMs: number;
  cpuMs: number | null;
}

/** Wall and CPU milliseconds from spawn to the "listening on" line; the process is then killed. */
function startOnce(mode: keyof typeof modes, dataDir: string): Promise<Start> {
  const { args, env } = modes[mode];
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...args, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'], env: env() },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${mode} start did not listen within 120 s: ${out}`));
    }, 120_000);
    const onData = (d: Buffer) => {
      out += d;
      if (!/listening on http/.test(out)) return;
      const start = { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid) };
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.once('exit', () => resolve(start));
      child.kill('SIGKILL');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) => {
      if (!/listening on http/.test(out)) {
        clearTimeout(timer);
        reject(new Error(`${mode} start exited (${code}) before listening: ${out}`));
      }
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export async function run(): Promise<BenchResult[]> {
  const { build } = (await import(join(root, 'scripts/build.mjs'))) as {
    build(): { ok: boolean; ms: number };
  };
  if (!build().ok) throw new Error('tsc -b tsconfig.build.json failed');
  const times: Record<keyof typeof modes, Start[]> = { compiled: [], tsx: [] };
  const dirs = {
    compiled: mkdtempSync(join(tmpdir(), 'bench-start-')),
    tsx: mkdtempSync(join(tmpdir(), 'bench-start-')),
  };
  try {
    for (const mode of ['compiled', 'tsx'] as const) await startOnce(mode, dirs[mode]);
    // Alternate the two so a burst of load elsewhere on the machine hits both alike.
    for (let i = 0; i < runs; i++)
      for (const mode of ['compiled', 'tsx'] as const) times[mode].push(await startOnce(mode, dirs[mode]));
  } finally {
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
  const wall = (mode: keyof typeof modes) => times[mode].map((t) => t.wallMs);
  const cpu = (mode: keyof typeof modes) => times[mode].flatMap((t) => (t.cpuMs === null ? [] : [t.cpuMs]));
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  const results: BenchResult[] = [
    {
      name: 'startup: agentlane serve to listening (compiled dist/, wall, median)',
      unit: 'ms',
      value: Math.round(median(wall('compiled'))),
      ratio: median(wall('tsx')) / median(wall('compiled')),
      extra: `baseline the same server from its sources through tsx (the CLI before dist/): ${median(wall('tsx')).toFixed(0)} ms; ${runs} starts each after one warm start, alternating; compiled ${fmt(wall('compiled'))} ms; tsx ${fmt(wall('tsx'))} ms`,
    },
  ];
  if (cpu('compiled').length > 0 && cpu('tsx').length > 0)
    results.push({
      name: 'startup: agentlane serve to listening (compiled dist/, CPU, median)',
      unit: 'ms',
      value: Math.round(median(cpu('compiled'))),
      ratio: median(cpu('tsx')) / median(cpu('compiled')),
      extra: `user+system CPU of the server process until it listens (independent of other load on the machine); baseline tsx from sources: ${median(cpu('tsx')).toFixed(0)} ms; compiled ${fmt(cpu('compiled'))} ms; tsx ${fmt(cpu('tsx'))} ms`,
    });
  return results;
}
