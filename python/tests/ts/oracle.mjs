// The TypeScript side as a black box: each line on stdin is a JSON array of [op, ...args] calls; the answer
// is one line with the JSON array of the results of @agentlane/contract's exported functions. One process
// serves the whole pytest session. Nothing here is ported to Python; the Python tests compare against it.
import { createInterface } from 'node:readline';
import { AgentlaneClient } from '@agentlane/client';
import * as contract from '@agentlane/contract';
import { saverRequest } from './checkpoints.mjs';
import { ledgerRequest } from './ledger.mjs';

const ops = {
  canonical: (value) => contract.canonicalJson(value),
  fingerprint: (value) => contract.fingerprintSessionState(value),
  // Number formatting of an IEEE-754 bit pattern (16 hex digits): what ECMAScript itself prints.
  number: (hex) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt(`0x${hex}`));
    return contract.canonicalJson(view.getFloat64(0));
  },
  merge: (a, b) => contract.mergeVectors(a, b),
  compare: (a, b) => contract.compareVectors(a, b),
  hasSeen: (v, change) => contract.hasSeen(v, change),
  increment: (v, clientId) => contract.incrementVector(v, clientId),
  // The parser's verdict on one value of a named shape, and on a stream frame (skipped: an unknown type).
  shape: (name, value) => (contract.parseShape(name, value).ok ? 'ok' : 'invalid'),
  stream: (frame) => {
    const result = contract.parseStreamEvent(frame);
    return result.skipped ? 'skipped' : result.ok ? 'ok' : 'invalid';
  },
  saver: (request) => saverRequest(request),
  ledger: (request) => ledgerRequest(request),
  // The TypeScript client's /sync call: {url, sessionId, body} → the server's answer.
  sync: ({ url, sessionId, body }) => new AgentlaneClient({ url }).syncSession(sessionId, body),
};

async function run([op, ...args]) {
  try {
    return await ops[op](...args);
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const results = [];
  for (const call of JSON.parse(line)) results.push(await run(call));
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
