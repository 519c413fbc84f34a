import type { SessionRecord } from '@agentlane/client';

/** The title a thread goes by: the user's, else the engine's (known from the open stream), else its first prompt. */
export function threadTitle(session: SessionRecord, engineTitle?: string): string {
  const prompt = session.activity?.firstPrompt?.trim().split('\n')[0];
  return session.title || engineTitle || (prompt ? prompt.slice(0, 80) : 'New thread');
}
