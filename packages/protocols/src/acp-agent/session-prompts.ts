/** One session/prompt in flight: its run once created, and whether a session/cancel came before that. */
export interface PromptEntry {
  runId?: string;
  cancelled: boolean;
}

/**
 * The prompts in flight per session, for session/cancel, which cancels every ongoing operation of the
 * session (ACP): a client may send a prompt while another is running (a second one queues behind the
 * first), and each prompt removes only itself when it ends, so a cancel reaches every run the session has,
 * including one whose creation is still on its way (it is cancelled as soon as it exists).
 */
export class SessionPrompts {
  readonly #bySession = new Map<string, Set<PromptEntry>>();

  /** A prompt of the session begins: call before its run is created. */
  begin(sessionId: string): PromptEntry {
    const entry: PromptEntry = { cancelled: false };
    const entries = this.#bySession.get(sessionId) ?? new Set<PromptEntry>();
    this.#bySession.set(sessionId, entries);
    entries.add(entry);
    return entry;
  }

  /** The prompt's run exists; true when a cancel came meanwhile (the caller cancels the run now). */
  started(entry: PromptEntry, runId: string): boolean {
    entry.runId = runId;
    return entry.cancelled;
  }

  end(sessionId: string, entry: PromptEntry): void {
    const entries = this.#bySession.get(sessionId);
    entries?.delete(entry);
    if (entries?.size === 0) this.#bySession.delete(sessionId);
  }

  /** The runs a session/cancel stops now; prompts whose run is not created yet are marked for it. */
  cancel(sessionId: string): string[] {
    const runIds: string[] = [];
    for (const entry of this.#bySession.get(sessionId) ?? []) {
      entry.cancelled = true;
      if (entry.runId !== undefined) runIds.push(entry.runId);
    }
    return runIds;
  }
}
