import type { TranslationStep } from '../translator.js';
import { compact } from './narrow.js';

/**
 * Runs one frame's translation so that it cannot throw: a translator's contract is that a frame it cannot
 * read becomes a harness.warning. On a throw the step is dropped whole (the prior state stays, nothing half
 * applied) and one warning keyed by the frame (`harness.warning:<frameKey>`) says why.
 */
export function translateGuarded<S>(
  prior: S,
  frameKey: string,
  code: string,
  translate: () => TranslationStep<S>,
): TranslationStep<S> {
  try {
    return translate();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      state: prior,
      events: [
        {
          key: `harness.warning:${frameKey}`,
          draft: {
            kind: 'harness.warning',
            payload: compact({ code, message: `could not translate a frame: ${reason.slice(0, 300)}` }),
          },
        },
      ],
    };
  }
}
