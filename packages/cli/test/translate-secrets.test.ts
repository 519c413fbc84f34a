import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REDACTED } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { translateTrace } from '../src/commands/translate';
import { acpWireFixture, scratchDir, translateFlags } from './translate-setup';

const KEY = 'sk-ant-api03-TRANSLATEDSECRETKEY0123456789';
const TOKEN = 'server-token-0123456789abcdef';
const OPTION_KEY = 'engine-option-key-0123456789';
const dir = scratchDir('agentlane-translate-secrets-');

/**
 * The recorded ACP trace with the agent's first two text chunks replaced: the key split between them, an
 * `Authorization` header split between the next two, the server token and an engine entry's key after.
 */
function traceWithSecrets(): string {
  const texts = [
    `my key is ${KEY.slice(0, 16)}`,
    `${KEY.slice(16)}, and the header is Authorization: Bea`,
    'rer abc123def456ghi, ',
    `token ${TOKEN} and ${OPTION_KEY}. `,
  ];
  const lines = readFileSync(acpWireFixture, 'utf8').split('\n');
  let next = 0;
  const out = lines.map((line) => {
    if (next >= texts.length || !line.includes('"agent_message_chunk"') || line.includes('"text":""'))
      return line;
    const wire = JSON.parse(line) as { msg: { params: { update: { content: { text: string } } } } };
    wire.msg.params.update.content.text = texts[next++] as string;
    return JSON.stringify(wire);
  });
  const file = join(dir, 'secrets.wire.jsonl');
  writeFileSync(file, out.join('\n'));
  return file;
}

/** A config file as serve reads it: a token, an engine whose options hold a key. */
function configFile(): string {
  const file = join(dir, 'agentlane.json');
  writeFileSync(
    file,
    JSON.stringify({
      tokens: [{ token: TOKEN, threads: '*' }],
      engines: [{ name: 'oc', type: 'opencode', env: { OPENAI_API_KEY: OPTION_KEY } }],
    }),
  );
  return file;
}

async function translated(env: NodeJS.ProcessEnv, config?: string): Promise<string[]> {
  const lines: string[] = [];
  await translateTrace(
    traceWithSecrets(),
    { ...translateFlags, ...(config ? { config } : {}) },
    (l) => lines.push(l),
    () => {},
    env,
  );
  return lines;
}

describe('agentlane translate keeps the secrets serve knows out of the events', () => {
  it('redacts the environment keys, split across chunks, and a split header, as the server would', async () => {
    const lines = await translated({ ANTHROPIC_API_KEY: KEY, AGENTLANE_TOKENS: TOKEN }, configFile());
    const all = lines.join('\n');
    for (const secret of [KEY, TOKEN, OPTION_KEY, 'abc123def456ghi']) expect(all).not.toContain(secret);
    // Not even the held start of the key went out in a delta.
    expect(all).not.toContain(KEY.slice(0, 12));
    const completed = lines
      .map((l) => JSON.parse(l) as { kind: string; payload: { text?: string; role?: string } })
      .find((e) => e.kind === 'message.completed' && e.payload.role === 'assistant');
    expect(completed?.payload.text).toContain(
      `my key is ${REDACTED}, and the header is Authorization: Bearer ${REDACTED}, token ${REDACTED} and ${REDACTED}.`,
    );
    const deltas = lines
      .map((l) => JSON.parse(l) as { kind: string; payload: { delta?: string } })
      .filter((e) => e.kind === 'message.delta')
      .map((e) => e.payload.delta)
      .join('');
    expect(deltas).toContain(`my key is ${REDACTED}, and the header is Authorization: Bearer ${REDACTED}, `);
  });

  it('with nothing configured, header-shaped credentials still go', async () => {
    const all = (await translated({ AGENTLANE_CONFIG: configFile() })).join('\n');
    expect(all).not.toContain('abc123def456ghi');
    expect(all).not.toContain(TOKEN);
    // The key is in no variable and no config: it is not known to be one.
    expect(all).toContain(KEY.slice(16));
  });
});
