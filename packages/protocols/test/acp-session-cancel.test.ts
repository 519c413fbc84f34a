import { describe, expect, it } from 'vitest';
import type { AcpBackend } from '../src/acp-agent/backend';
import { runPrompt } from '../src/acp-agent/prompt-run';
import { SessionPrompts } from '../src/acp-agent/session-prompts';

// session/cancel cancels every ongoing operation of the session (ACP). A probe found one run per session
// remembered: a second prompt overwrote the first's entry and the first to end deleted the other's, so Stop
// did nothing for the rest of a turn (prompt, Stop, new prompt at once: the new one could not be stopped).
describe('session/cancel and the prompts of a session', () => {
  it('reaches every prompt in flight, each prompt removing only itself when it ends', () => {
    const prompts = new SessionPrompts();
    const first = prompts.begin('s');
    const second = prompts.begin('s');
    prompts.started(first, 'run-1');
    prompts.started(second, 'run-2');
    expect(prompts.cancel('s')).toEqual(['run-1', 'run-2']);
    // The first ends (cancelled); a third prompt comes right after the Stop: it is not cancelled by it …
    prompts.end('s', first);
    const third = prompts.begin('s');
    expect(prompts.started(third, 'run-3')).toBe(false);
    // … and the next Stop still reaches the second and the third.
    expect(prompts.cancel('s')).toEqual(['run-2', 'run-3']);
    prompts.end('s', second);
    prompts.end('s', third);
    expect(prompts.cancel('s')).toEqual([]);
  });

  it('cancels a prompt whose run was still being created when the cancel came', () => {
    const prompts = new SessionPrompts();
    const entry = prompts.begin('s');
    expect(prompts.cancel('s')).toEqual([]);
    expect(prompts.started(entry, 'run-1')).toBe(true);
  });

  it('keeps sessions apart', () => {
    const prompts = new SessionPrompts();
    prompts.started(prompts.begin('a'), 'run-a');
    prompts.started(prompts.begin('b'), 'run-b');
    expect(prompts.cancel('a')).toEqual(['run-a']);
  });

  it('runPrompt cancels its run at once when a cancel came while the run was created', async () => {
    const cancelled: string[] = [];
    let created: (runId: string) => void = () => {};
    const backend = {
      head: async () => 0,
      createRun: () => new Promise<string>((resolve) => (created = resolve)),
      cancelRun: async (runId: string) => {
        cancelled.push(runId);
      },
      // The test ends the prompt here: the point is what happened before the stream was followed.
      follow: async () => {
        throw new Error('stop here');
      },
    } as unknown as AcpBackend;
    const prompts = new SessionPrompts();
    const entry = prompts.begin('s');
    const prompt = runPrompt({
      backend,
      client: {} as never,
      sessionId: 's',
      prompt: 'x',
      active: prompts,
      entry,
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(prompts.cancel('s')).toEqual([]);
    created('run-1');
    await expect(prompt).rejects.toThrow('stop here');
    expect(cancelled).toEqual(['run-1']);
  });
});
