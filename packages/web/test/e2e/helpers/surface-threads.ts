import { noCapabilities, type StreamEvent } from '@agentlane/contract';
import { FrameWriter } from './frames';

/**
 * The surfaces `allSurfacesThread` does not show, for the screenshots: an open command approval, a failed
 * tool, an error and a fatal error that ends the run, and a composer with slash commands, modes and the
 * model picker (the engine allows model selection).
 */
export function composerAndErrorsThread(threadId: string): StreamEvent[] {
  const w = new FrameWriter(threadId);
  w.runStatus('running');
  w.emit({
    kind: 'session.started',
    payload: {
      provider: 'recorded',
      origin: 'new',
      generation: 1,
      capabilities: {
        ...noCapabilities(),
        approvals: true,
        commands: true,
        modelSelection: true,
        toolProgress: true,
      },
    },
  });
  w.emit({
    kind: 'session.metadata',
    payload: {
      title: 'Deploy to staging',
      model: { id: 'model-a', name: 'Model A' },
      availableModels: [
        { id: 'model-a', name: 'Model A' },
        { id: 'model-b', name: 'Model B' },
      ],
    },
  });
  w.emit({
    kind: 'commands.updated',
    payload: {
      commands: [
        { name: 'review', description: 'Review the diff' },
        { name: 'release', description: 'Cut a release' },
        { name: 'test', description: 'Run the tests' },
      ],
    },
  });
  w.emit({
    kind: 'mode.updated',
    payload: {
      currentModeId: 'code',
      availableModes: [
        { id: 'code', name: 'Code' },
        { id: 'ask', name: 'Ask' },
        { id: 'plan', name: 'Plan' },
      ],
    },
  });
  w.emit({ kind: 'turn.started', payload: { prompt: 'Deploy the site to staging' } });
  w.emit({
    kind: 'tool.started',
    payload: {
      toolCallId: 't-deploy',
      name: 'bash',
      title: 'npm run deploy',
      kind: 'execute',
      input: { command: 'npm run deploy -- --env staging' },
      status: 'running',
    },
  });
  w.emit({
    kind: 'tool.completed',
    payload: {
      toolCallId: 't-deploy',
      status: 'failed',
      error: 'exit code 1: permission denied (publickey)',
      durationMs: 3400,
    },
  });
  w.emit({
    kind: 'harness.error',
    payload: { code: 'tool_failed', message: 'The deploy command failed; retrying once.', fatal: false },
  });
  w.emit({
    kind: 'approval.requested',
    payload: {
      approvalId: 'ap-rm',
      toolCallId: 't-clean',
      title: 'Run a command?',
      description: 'The agent wants to clean the build folder before retrying.',
      subject: { kind: 'command', command: 'rm -rf dist && npm run build' },
      options: [
        { optionId: 'once', label: 'Allow once', kind: 'allow_once' },
        { optionId: 'always', label: 'Always allow', kind: 'allow_always' },
        { optionId: 'no', label: 'Reject', kind: 'reject_once' },
      ],
    },
  });
  w.emit({
    kind: 'harness.error',
    payload: {
      code: 'engine_exited',
      message: 'The engine process exited with code 137 while the approval was open.',
      fatal: true,
    },
  });
  w.emit({ kind: 'turn.completed', payload: { stopReason: 'error', durationMs: 9100 } });
  w.runStatus('failed');
  w.canonicalized('failed');
  return w.frames;
}
