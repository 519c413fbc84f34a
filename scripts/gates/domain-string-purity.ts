// Gate: the contract package stays engine-neutral. Scans its source for engine and vendor names and for
// engine-protocol method / event names; any hit fails CI. The contract is what a non-TypeScript runtime
// mirrors, so a leaked vendor string would become every runtime's problem.
//
// Usage: node --conditions=agentlane-source --import tsx scripts/gates/domain-string-purity.ts [root]   (default: packages/contract/src)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ForbiddenPattern {
  family: 'vendor' | 'protocol-method' | 'protocol-event';
  literal: string;
  pattern: RegExp;
}

/** Matches `word` case-insensitively, not as part of a longer run of letters (so `zed` misses `serialized`). */
function word(literal: string): RegExp {
  const escaped = literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`(?<![a-z])${escaped}(?![a-z])`, 'i');
}

/** Matches the literal anywhere, case-insensitively (distinctive names that are never part of English words). */
function anywhere(literal: string): RegExp {
  return new RegExp(literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'i');
}

const VENDORS = ['opencode', 'claude', 'anthropic', 'codex', 'openai', 'gemini', 'google', 'copilot'];
const SHORT_VENDORS = ['zed', 'sst'];

/** Method names of engine wire protocols (JSON-RPC methods, HTTP event names). */
const PROTOCOL_METHODS = [
  'session/new',
  'session/load',
  'session/resume',
  'session/prompt',
  'session/cancel',
  'session/update',
  'session/request_permission',
  'session/set_mode',
  'session/set_model',
  'session/set_config_option',
  'session/list',
  'session/fork',
  'session/close',
  'fs/read_text_file',
  'fs/write_text_file',
  'terminal/create',
  'terminal/output',
  'terminal/release',
  'terminal/kill',
  'terminal/wait_for_exit',
  'elicitation/create',
  'request_permission',
];

/** Engine-native event and update discriminators the translators map from. */
const PROTOCOL_EVENTS = [
  'agent_message_chunk',
  'agent_thought_chunk',
  'user_message_chunk',
  'tool_call_update',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
  'message.part.updated',
  'message.part.delta',
  'message.part.removed',
  'message.updated',
  'session.idle',
  'session.created',
  'session.updated',
  'session.status',
  'session.diff',
  'session.error',
  'session.next',
  'permission.updated',
  'permission.asked',
  'permission.replied',
  'question.asked',
  'todo.updated',
  'file.edited',
];

export const FORBIDDEN_PATTERNS: readonly ForbiddenPattern[] = [
  ...VENDORS.map((literal) => ({ family: 'vendor' as const, literal, pattern: anywhere(literal) })),
  ...SHORT_VENDORS.map((literal) => ({ family: 'vendor' as const, literal, pattern: word(literal) })),
  ...PROTOCOL_METHODS.map((literal) => ({
    family: 'protocol-method' as const,
    literal,
    pattern: word(literal),
  })),
  ...PROTOCOL_EVENTS.map((literal) => ({
    family: 'protocol-event' as const,
    literal,
    pattern: word(literal),
  })),
];

export interface PurityHit {
  file: string;
  line: number;
  literal: string;
  family: ForbiddenPattern['family'];
  text: string;
}

const SCANNED = /\.(ts|tsx|mts|cts|js|mjs|cjs|json)$/;

function filesUnder(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...filesUnder(path));
    } else if (SCANNED.test(entry.name)) {
      out.push(path);
    }
  }
  return out.sort();
}

/** Every forbidden literal in the source files under `root`, with file and line. */
export function scanForForbiddenLiterals(root: string): PurityHit[] {
  const hits: PurityHit[] = [];
  for (const file of filesUnder(root)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((text, index) => {
      for (const forbidden of FORBIDDEN_PATTERNS) {
        if (forbidden.pattern.test(text)) {
          hits.push({
            file: relative(root, file),
            line: index + 1,
            literal: forbidden.literal,
            family: forbidden.family,
            text: text.trim(),
          });
        }
      }
    });
  }
  return hits;
}

/** Runs the gate over `root`; returns the process exit code. */
export function runPurityGate(root: string, log: (line: string) => void = console.log): number {
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    log(`domain-string purity: ${root} is not a directory`);
    return 2;
  }
  const hits = scanForForbiddenLiterals(root);
  for (const hit of hits) {
    log(`${hit.file}:${hit.line}: forbidden ${hit.family} literal "${hit.literal}": ${hit.text}`);
  }
  log(
    hits.length === 0
      ? `domain-string purity: ${root} is clean (${FORBIDDEN_PATTERNS.length} patterns)`
      : `domain-string purity: ${hits.length} forbidden literal(s) in ${root}`,
  );
  return hits.length === 0 ? 0 : 1;
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && resolve(process.argv[1]) === self) {
  const root = process.argv[2] ?? join(dirname(self), '..', '..', 'packages', 'contract', 'src');
  process.exit(runPurityGate(resolve(root)));
}
