import type { FakeModelServer, ModelReply } from '@agentlane/fake-model-server';

/** Characters per streamed chunk: 20,000 chunks make the 2 MB answer. */
export const CHUNK_CHARS = 100;

const WORDS =
  'the agent reads a file then writes a patch and runs the tests again while the user waits for a long answer with code blocks lists and prose'.split(
    ' ',
  );

/** Deterministic prose of `chars` characters: words, punctuation and line breaks (JSON escapes them). */
export function prose(chars: number): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const w = WORDS[(i * 7 + (i >> 3)) % WORDS.length] as string;
    const sep = i % 17 === 16 ? '.\n' : i % 5 === 4 ? ', ' : ' ';
    out.push(w, sep);
    n += w.length + sep.length;
  }
  return out.join('').slice(0, chars);
}

/**
 * The fake model answers every request with `chunks` chunks of text, except the built-in engine's planning
 * call, which gets a one-line plan (a real model's plan is short; the answer is what is long).
 */
export function longAnswer(fake: FakeModelServer, chunks: number): string {
  const text = prose(chunks * CHUNK_CHARS);
  const reply: ModelReply = { text, chunkSize: CHUNK_CHARS };
  fake.setScenario((req) =>
    JSON.stringify(req.body).includes('Draft a short plan') ? { text: '1. Write the long answer.' } : reply,
  );
  return text;
}
