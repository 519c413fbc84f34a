import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { noCapabilities } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { expectedSurfaces, SURFACE_IDS } from '../src/surfaces';
import { allSurfacesThread, FrameWriter, textOnlyThread } from './e2e/helpers/frames';

function started(w: FrameWriter, modelSelection = false) {
  w.emit({
    kind: 'session.started',
    payload: {
      provider: 'recorded',
      origin: 'new',
      generation: 1,
      capabilities: { ...noCapabilities(), modelSelection },
    },
  });
}

describe('expectedSurfaces', () => {
  it('a text-only thread calls for the message surface alone', () => {
    expect(expectedSurfaces(textOnlyThread('t'))).toEqual(['message']);
  });

  it('a thread with every kind calls for every row surface, the open question puts up the waiting bar', () => {
    const { frames } = allSurfacesThread('t');
    expect(expectedSurfaces(frames)).toEqual([
      'message',
      'reasoning',
      'plan',
      'tool',
      'file',
      'terminal',
      'artifact',
      'child',
      'approval',
      'question',
      'context',
      'warning',
      'usage',
      'waiting',
      'commands',
      'mode',
    ]);
  });

  it('maps each row kind to its surface and shows no surface for session facts and turn bounds', () => {
    const cases: [Parameters<FrameWriter['emit']>[0], string[]][] = [
      [{ kind: 'turn.started', payload: { prompt: 'hi' } }, []],
      [{ kind: 'turn.completed', payload: { stopReason: 'end_turn' } }, []],
      [{ kind: 'session.metadata', payload: { title: 'x' } }, []],
      [{ kind: 'message.delta', payload: { messageId: 'm', partId: 'p', delta: 'x' } }, ['message']],
      [{ kind: 'reasoning.delta', payload: { reasoningId: 'r', delta: 'x' } }, ['reasoning']],
      [{ kind: 'plan.updated', payload: { entries: [] } }, ['plan']],
      [
        {
          kind: 'tool.started',
          payload: { toolCallId: 't', name: 'n', kind: 'read', input: {}, status: 'running' },
        },
        ['tool'],
      ],
      [{ kind: 'file.changed', payload: { path: 'a', change: 'created' } }, ['file']],
      [{ kind: 'terminal.output', payload: { terminalId: 'x', stream: 'stdout', chunk: 'x' } }, ['terminal']],
      [{ kind: 'child.started', payload: { childSessionId: 'c' } }, ['child']],
      [{ kind: 'context.marker', payload: { markerKind: 'rule', phase: 'point', label: 'l' } }, ['context']],
      [{ kind: 'harness.warning', payload: { code: 'c', message: 'm' } }, ['warning']],
      [{ kind: 'harness.error', payload: { code: 'c', message: 'm', fatal: true } }, ['error']],
      [{ kind: 'usage.updated', payload: { scope: 'turn', inputTokens: 1 } }, ['usage']],
      [{ kind: 'commands.updated', payload: { commands: [] } }, []],
      [{ kind: 'mode.updated', payload: { currentModeId: 'a' } }, []],
    ];
    for (const [draft, surfaces] of cases) {
      const w = new FrameWriter('t');
      w.emit(draft);
      expect(expectedSurfaces(w.frames), draft.kind).toEqual(surfaces);
    }
  });

  it('the model picker follows the modelSelection capability flag only', () => {
    const on = new FrameWriter('t');
    started(on, true);
    expect(expectedSurfaces(on.frames)).toEqual(['model-picker']);
    const off = new FrameWriter('t');
    started(off, false);
    expect(expectedSurfaces(off.frames)).toEqual([]);
  });

  it('an approval or question is waiting until resolved, a sub-agent one too, without leaking its card', () => {
    const w = new FrameWriter('t');
    const request = {
      kind: 'approval.requested' as const,
      payload: {
        approvalId: 'a1',
        title: 'Run it?',
        subject: { kind: 'command' as const, command: 'ls' },
        options: [{ optionId: 'ok', label: 'OK', kind: 'allow_once' as const }],
      },
    };
    w.emit(request);
    expect(expectedSurfaces(w.frames)).toEqual(['approval', 'waiting']);
    w.emit({ kind: 'approval.resolved', payload: { approvalId: 'a1', outcome: 'selected', optionId: 'ok' } });
    expect(expectedSurfaces(w.frames)).toEqual(['approval']);

    const child = new FrameWriter('t');
    child.emit({ kind: 'child.started', payload: { childSessionId: 'c1' } });
    child.emit(request, { namespace: ['c1'] });
    child.emit(
      { kind: 'message.delta', payload: { messageId: 'm', partId: 'p', delta: 'x' } },
      { namespace: ['c1'] },
    );
    expect(expectedSurfaces(child.frames)).toEqual(['child', 'waiting']);
    child.emit(
      { kind: 'approval.resolved', payload: { approvalId: 'a1', outcome: 'cancelled' } },
      { namespace: ['c1'] },
    );
    expect(expectedSurfaces(child.frames)).toEqual(['child']);
  });

  it('reads the latest revision of a row: commands and modes come and go with their payload', () => {
    const w = new FrameWriter('t');
    const commands = w.emit({
      kind: 'commands.updated',
      payload: { commands: [{ name: 'review', description: 'Review' }] },
    });
    const mode = w.emit({
      kind: 'mode.updated',
      payload: { currentModeId: 'a', availableModes: [{ id: 'a', name: 'A' }] },
    });
    expect(expectedSurfaces(w.frames)).toEqual(['commands', 'mode']);
    w.emit(
      { kind: 'commands.updated', payload: { commands: [] } },
      { eventId: commands.event.eventId, revision: 2 },
    );
    w.emit(
      { kind: 'mode.updated', payload: { currentModeId: 'a' } },
      { eventId: mode.event.eventId, revision: 2 },
    );
    expect(expectedSurfaces(w.frames)).toEqual([]);
    // A stale revision delivered late does not bring them back.
    w.frames.push({ ...commands, deliverySeq: 99 });
    expect(expectedSurfaces(w.frames)).toEqual([]);
  });

  it('ignores run signals, stream frames and anything that is not a canonical row', () => {
    const w = new FrameWriter('t');
    w.runStatus('running');
    w.canonicalized();
    const frames = [
      ...w.frames,
      { type: 'stream.opened', threadId: 't', after: 0, headDeliverySeq: 0 },
      { type: 'message.delta', deliverySeq: 5 },
      null,
      'junk',
    ];
    expect(expectedSurfaces(frames)).toEqual([]);
  });

  it('knows exactly the data-surface values the components render', () => {
    const dir = fileURLToPath(new URL('../src/components', import.meta.url));
    const rendered = new Set<string>();
    for (const file of readdirSync(dir)) {
      for (const match of readFileSync(join(dir, file), 'utf8').matchAll(/data-surface="([^"]+)"/g))
        rendered.add(match[1]!);
    }
    expect([...rendered].sort()).toEqual([...SURFACE_IDS].sort());
  });
});
