import { noCapabilities, type RunView, type SessionView } from '@agentlane/contract';
import type { HarnessSessionRecord, RunRecord, ThreadRecord } from '@agentlane/store';

/** The `/sessions` resource: a thread plus its harness session (one per thread). */
export function sessionView(thread: ThreadRecord, session: HarnessSessionRecord | null): SessionView {
  return {
    id: thread.threadId,
    engine: thread.engine,
    title: thread.title,
    workDir: thread.workDir,
    metadata: thread.metadata,
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    provider: session?.provider ?? null,
    nativeSessionId: session?.nativeSessionId ?? null,
    protocolVersion: session?.protocolVersion ?? null,
    // Every flag, so a session stored before a flag existed still matches the reply schema.
    capabilities: { ...noCapabilities(), ...session?.capabilities },
    generation: session?.generation ?? 0,
  };
}

export function runView(run: RunRecord): RunView {
  return {
    runId: run.runId,
    threadId: run.threadId,
    parentRunId: run.parentRunId,
    status: run.status,
    prompt: run.prompt,
    options: run.options,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    error: run.error,
    outcome: run.outcome,
    canonicalizedAt: run.canonicalizedAt,
  };
}
