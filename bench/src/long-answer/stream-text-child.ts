/**
 * The baseline of the long-answer bench, in a process of its own (so the fake model server's work in the
 * bench process is not counted): the AI SDK's own `streamText` over the fake Chat Completions stream, every
 * part consumed. Prints one JSON line: the CPU time of the stream (user + system) and the parts seen.
 *   node --import tsx stream-text-child.ts <baseURL>
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';

const baseURL = process.argv[2];
if (!baseURL) throw new Error('usage: stream-text-child.ts <baseURL>');
const model = createOpenAICompatible({ name: 'bench', baseURL, apiKey: 'k', includeUsage: true })(
  'fake-model',
);
const before = process.cpuUsage();
const t0 = performance.now();
let parts = 0;
let text = 0;
const r = streamText({ model, prompt: 'go', maxRetries: 0 });
for await (const part of r.fullStream) {
  parts++;
  if (part.type === 'text-delta') text += part.text.length;
}
const cpu = process.cpuUsage(before);
console.log(
  JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, parts, text }),
);
