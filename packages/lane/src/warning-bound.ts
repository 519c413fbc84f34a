import type { JsonObject } from '@agentlane/contract';
import type { TranslatedEvent } from '@agentlane/engine-kit';

/**
 * How many harness.warning events one run stores one by one. Every translator turns a frame it cannot read
 * into a warning, so an engine that sends nothing but bad frames made one run store 10,006 warnings: rows in
 * the store, events on every subscriber's stream, entries in the timeline, all saying the same thing. A
 * healthy run makes a few (the ACP translator already folds a burst of late frames into one), so 100 is far
 * above need and still shows the pattern of a broken engine. Past it a warning is counted by its code, not
 * stored; the frames themselves stay in the source lane (and their wire bytes in the raw sidecar), untouched.
 */
export const MAX_RUN_WARNINGS = 100;

/**
 * How many distinct codes the summary names; the warnings of further codes are counted together. Codes are
 * the translators' own, but some copy one from the engine: a hostile engine must not grow the summary.
 */
export const MAX_SUMMARY_CODES = 50;

/** The code of the one warning that says the run's further warnings are counted, not stored. */
export const WARNINGS_LIMITED = 'warnings_limited';
/** The code of the summary at the run's end: how many warnings of each code were not stored. */
export const WARNINGS_SUPPRESSED = 'warnings_suppressed';

/** The keys of the two warnings above (one each per run). */
const LIMITED_KEY = 'lane.warnings-limited';
const SUPPRESSED_KEY = 'lane.warnings-suppressed';

/**
 * The bound on a run's harness.warning events, applied to every event a run's translation builds (of any
 * adapter, and the lane's own warnings), so the live pass and the final pass keep and count the same ones:
 * its state depends only on the events in their order. The first `limit` warning keys are kept (and a kept
 * key's re-emission still revises it); the first key past them is replaced by one warning saying that further
 * warnings are counted, not stored; the run's end (RunTranslation.finish, the final pass) adds one summary
 * with the count per code.
 */
export class WarningBound {
  private kept = 0;
  private suppressed = 0;
  /** Keys suppressed so far: re-emitting one is not a second warning. */
  private readonly suppressedKeys = new Set<string>();
  private readonly byCode = new Map<string, number>();
  private otherCodes = 0;

  constructor(private readonly limit = MAX_RUN_WARNINGS) {}

  /**
   * The event to build for a translated one: itself, the notice instead of the first warning past the bound,
   * or null (a warning past the bound, counted). `seen`: the key was built before (a kept warning revised).
   */
  admit(t: TranslatedEvent, seen: boolean): TranslatedEvent | null {
    if (t.draft.kind !== 'harness.warning' || seen) return t;
    if (this.suppressedKeys.has(t.key)) return null;
    if (this.kept < this.limit) {
      this.kept++;
      return t;
    }
    this.suppressedKeys.add(t.key);
    this.count(codeOf(t));
    if (this.suppressed > 1) return null;
    return {
      key: LIMITED_KEY,
      draft: {
        kind: 'harness.warning',
        payload: {
          code: WARNINGS_LIMITED,
          message:
            `this run made more than ${this.limit} warnings: further warnings are counted, not stored ` +
            '(their frames stay in the source lane); a summary by code follows at the end of the run',
          detail: { limit: this.limit },
        },
      },
    };
  }

  /** The summary of the warnings not stored, for the run's end; null when none was suppressed. */
  summary(): TranslatedEvent | null {
    if (this.suppressed === 0) return null;
    const byCode: JsonObject = {};
    for (const [code, n] of this.byCode) byCode[code] = n;
    const named = [...this.byCode].map(([code, n]) => `${code} (${n})`);
    if (this.otherCodes > 0) named.push(`other codes (${this.otherCodes})`);
    return {
      key: SUPPRESSED_KEY,
      draft: {
        kind: 'harness.warning',
        payload: {
          code: WARNINGS_SUPPRESSED,
          message: `${this.suppressed} warnings of this run were not stored (past the first ${this.limit}): ${named.join(', ')}`,
          detail: {
            limit: this.limit,
            suppressed: this.suppressed,
            byCode,
            ...(this.otherCodes > 0 ? { otherCodes: this.otherCodes } : {}),
          },
        },
      },
    };
  }

  private count(code: string): void {
    this.suppressed++;
    const n = this.byCode.get(code);
    if (n !== undefined) this.byCode.set(code, n + 1);
    else if (this.byCode.size < MAX_SUMMARY_CODES) this.byCode.set(code, 1);
    else this.otherCodes++;
  }
}

function codeOf(t: TranslatedEvent): string {
  const code = (t.draft.payload as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}
