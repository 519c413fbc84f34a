// Installs the pinned real engines into testing/engines/real (npm ci there) unless they are installed from
// its current lockfile: `.ci/run` calls it; the engine tests do the same on first use.
// Usage: node --conditions=agentlane-source --import tsx testing/engines/scripts/install-real-engines.ts
import { ensureRealEngines } from '../src/real-engines';

const why = ensureRealEngines();
if (why) {
  console.error(why);
  process.exit(1);
}
console.log('the pinned real engines are installed in testing/engines/real');
