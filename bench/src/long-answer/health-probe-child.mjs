/**
 * The /health probe of the long-answer bench, in a process of its own: the bench process also serves the fake
 * model's 20,000 chunks and parses the follower's SSE, and a probe sharing that event loop measured the
 * bench's own delays next to the server's. After one warm-up request it prints `ready`, then probes `<url>` one request at a time, 20 ms apart, until stdin
 * closes, then prints one JSON line: the latencies (ms), when each was sent (ms after the first) and the probes asked again after a dropped keep-alive.
 *   node health-probe-child.mjs <url>
 */
const url = process.argv[2];
if (!url) throw new Error('usage: health-probe-child.mjs <url>');
let stop = false;
process.stdin.on('end', () => {
  stop = true;
});
process.stdin.resume();
// Node loads its fetch (undici) at the first call, tens of ms: not the server's time. Then "ready".
await (await fetch(url)).arrayBuffer();
process.stdout.write('ready\n');
const samples = [];
/** When each probe was sent, ms after this process started probing: where in the run the slow ones fall. */
const at = [];
const started = performance.now();
let retries = 0;
while (!stop) {
  const t0 = performance.now();
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    samples.push(performance.now() - t0);
    at.push(t0 - started);
  } catch {
    retries++;
    continue;
  }
  await new Promise((r) => setTimeout(r, 20));
}
process.stdout.write(`${JSON.stringify({ samples, at, retries })}\n`);
