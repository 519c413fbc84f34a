// npm run schema:generate: writes the JSON Schema bundle that non-TypeScript clients read.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSchemaBundle } from '../src/schema-bundle';

const target = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'schema',
  'agentlane.schema.json',
);
writeFileSync(target, renderSchemaBundle());
console.log(`wrote ${target}`);
