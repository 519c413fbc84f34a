import { fileURLToPath } from 'node:url';

/** A real engine session recorded offline, shipped so `npm start` can show one without any API key. */
export interface RecordedSession {
  /** The engine name it is configured under, e.g. "replay-opencode". */
  name: string;
  /** What a picker shows; always says it is a replay. */
  label: string;
  /** The translator that reads it (the real one of its engine). */
  provider: 'opencode' | 'acp';
  /** Absolute path of the JSONL trace. */
  trace: string;
  description: string;
}

const recording = (file: string) => fileURLToPath(new URL(`../recordings/${file}`, import.meta.url));

/** The recorded sessions in this package (copies of the native fixtures, recorded against a fake model). */
export function recordedSessions(): RecordedSession[] {
  return [
    {
      name: 'replay-opencode',
      label: 'Replay: OpenCode 1.18.33 (recorded session)',
      provider: 'opencode',
      trace: recording('opencode.jsonl'),
      description: 'opencode serve writing hello.txt: reasoning, text, a write tool call and usage.',
    },
    {
      name: 'replay-claude-code',
      label: 'Replay: Claude Code over ACP (recorded session)',
      provider: 'acp',
      trace: recording('claude-agent-acp.wire.jsonl'),
      description: 'claude-agent-acp 0.23.1 writing hello.txt after a permission request.',
    },
    {
      name: 'replay-codex',
      label: 'Replay: Codex over ACP (recorded session)',
      provider: 'acp',
      trace: recording('codex-acp.wire.jsonl'),
      description: 'codex-acp 0.16.0 running a shell command after a permission request.',
    },
  ];
}
