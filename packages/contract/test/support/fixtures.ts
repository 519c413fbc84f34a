import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CanonicalEvent, parseCanonicalEvent } from '../../src/index';

const valid = join(import.meta.dirname, '..', 'fixtures', 'valid');

/** Every valid example event of the fixture corpus, parsed (the corpus has at least one of each kind). */
export function loadValidEvents(): CanonicalEvent[] {
  return readdirSync(valid)
    .filter((name) => name.startsWith('event-') && name.endsWith('.json'))
    .sort()
    .map((name) => {
      const parsed = parseCanonicalEvent(
        (JSON.parse(readFileSync(join(valid, name), 'utf8')) as { value: unknown }).value,
      );
      if (!parsed.ok) throw new Error(`fixture ${name} is invalid: ${JSON.stringify(parsed.errors)}`);
      return parsed.value;
    });
}
