// The TypeScript side as a black box: reads [[op, ...args], ...] as JSON on stdin and prints the results
// of @agentlane/contract's exported functions as a JSON array. Nothing here is ported to Python; the
// Python tests compare their own results against these.
import * as contract from '@agentlane/contract';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const calls = JSON.parse(Buffer.concat(chunks).toString('utf8'));

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
};

const results = calls.map(([op, ...args]) => {
  try {
    return ops[op](...args);
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
});
process.stdout.write(JSON.stringify(results));
