import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensurePinnedFolder } from '@agentlane/test-engines';
import type Database from 'better-sqlite3';

/**
 * LangGraph's checkpoint savers, the checkpoints benchmark's baseline, live in bench/baselines (their own
 * package.json and lockfile): nothing but this benchmark uses them, so the project's `npm ci` does not
 * download them (with @langchain/core, js-tiktoken and langsmith: 60 MB and 60 packages). They are
 * installed there on first use, with --ignore-scripts: the SQLite saver gets the project's own better-sqlite3
 * connection, so its nested copy of the driver is never built. Only what the benchmark calls is typed here.
 */
const baselinesDir = fileURLToPath(new URL('../../baselines/', import.meta.url));

export interface LangGraphCheckpoint {
  id: string;
  ts: string;
  channel_values: Record<string, unknown>;
  channel_versions: Record<string, number>;
  versions_seen: Record<string, unknown>;
}

interface Config {
  configurable: Record<string, string>;
}

export interface LangGraphSaver {
  put(
    config: Config,
    checkpoint: LangGraphCheckpoint,
    metadata: Record<string, unknown>,
    newVersions: Record<string, number>,
  ): Promise<unknown>;
  getTuple(config: Config): Promise<{ checkpoint: LangGraphCheckpoint } | undefined>;
}

export interface LangGraph {
  emptyCheckpoint(): LangGraphCheckpoint;
  uuid6(clockseq: number): string;
  sqliteSaver(db: Database.Database): LangGraphSaver;
  pgSaver(url: string, schema: string): LangGraphSaver & { setup(): Promise<void>; end(): Promise<void> };
}

/** Installs the baselines when needed and loads them; throws why they cannot be had. */
export function loadLangGraph(): LangGraph {
  const why = ensurePinnedFolder({
    dir: baselinesDir,
    label: "the benchmarks' baselines (LangGraph's checkpoint savers)",
    npmArgs: ['--ignore-scripts'],
  });
  if (why) throw new Error(why);
  const require = createRequire(`${baselinesDir}package.json`);
  const core = require('@langchain/langgraph-checkpoint');
  const { SqliteSaver } = require('@langchain/langgraph-checkpoint-sqlite');
  const { PostgresSaver } = require('@langchain/langgraph-checkpoint-postgres');
  return {
    emptyCheckpoint: core.emptyCheckpoint,
    uuid6: core.uuid6,
    sqliteSaver: (db) => new SqliteSaver(db),
    pgSaver: (url, schema) => PostgresSaver.fromConnString(url, { schema }),
  };
}
