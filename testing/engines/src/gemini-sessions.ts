import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Gemini CLI 0.61.0 names a session's file after the minute it starts in (`session-<minute>-<id>.jsonl`) and
 * writes a fresh one on session/load: a load in the same minute clobbers the history and fails ("No previous
 * sessions found"), a load in a later minute finds it and replays it. Backdating the files of every engine
 * home below `homes` makes a restart always the later-minute case, so a test does not depend on the clock.
 */
export function backdateGeminiSessions(homes: string): number {
  let moved = 0;
  for (const home of existsSync(homes) ? readdirSync(homes) : []) {
    const tmp = join(homes, home, '.gemini', 'tmp');
    for (const project of existsSync(tmp) ? readdirSync(tmp) : []) {
      const chats = join(tmp, project, 'chats');
      for (const file of existsSync(chats) ? readdirSync(chats) : []) {
        const older = file.replace(/^session-[0-9T-]+-/, 'session-2020-01-01T00-00-');
        if (older === file) continue;
        renameSync(join(chats, file), join(chats, older));
        moved++;
      }
    }
  }
  return moved;
}
