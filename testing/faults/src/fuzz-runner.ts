import { ERROR_STATUS } from '@agentlane/server';
import type { FuzzCase } from './http-fuzz';

/** The status table of the server's error contract. */
const STATUS_OF_CODE: Readonly<Record<string, number>> = ERROR_STATUS;

export interface FuzzReport {
  cases: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  hangs: number;
  noAnswer: number;
  badShape: number;
  /** The first few failures, to reproduce. */
  examples: { case: FuzzCase; why: string }[];
}

function shapeProblem(status: number, text: string): string | null {
  let body: { error?: { code?: unknown; message?: unknown; field?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
  const e = body?.error;
  if (!e || typeof e.message !== 'string' || typeof e.code !== 'string')
    return `not the error shape: ${text.slice(0, 120)}`;
  if (STATUS_OF_CODE[e.code] !== status) return `code ${e.code} is not the status table's for ${status}`;
  if (e.field !== undefined && typeof e.field !== 'string') return 'field is not a string';
  return null;
}

/** Sends every case over keep-alive with `concurrency` in flight; an SSE answer is checked by its head only. */
export async function runFuzz(
  base: string,
  cases: readonly FuzzCase[],
  concurrency = 8,
  timeoutMs = 15_000,
): Promise<FuzzReport> {
  const report: FuzzReport = {
    cases: 0,
    byStatus: {},
    serverErrors: 0,
    hangs: 0,
    noAnswer: 0,
    badShape: 0,
    examples: [],
  };
  const fail = (c: FuzzCase, why: string) => {
    if (report.examples.length < 10)
      report.examples.push({
        case: { ...c, body: typeof c.body === 'string' ? c.body.slice(0, 200) : c.body },
        why,
      });
  };
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++] as FuzzCase;
      report.cases++;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        const res = await fetch(`${base}${c.url}`, {
          method: c.method,
          headers: c.headers,
          ...(c.body !== undefined ? { body: c.body } : {}),
          signal: controller.signal,
        });
        report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
        if (res.status >= 500) {
          report.serverErrors++;
          fail(c, `status ${res.status}`);
        }
        if (res.headers.get('content-type')?.includes('text/event-stream')) {
          controller.abort();
          await res.body?.cancel().catch(() => {});
        } else {
          const text = await res.text();
          if (res.status >= 400) {
            const problem = shapeProblem(res.status, text);
            if (problem) {
              report.badShape++;
              fail(c, problem);
            }
          }
        }
      } catch (error) {
        if (controller.signal.aborted) {
          report.hangs++;
          fail(c, `no answer within ${timeoutMs} ms`);
        } else {
          report.noAnswer++;
          fail(c, `no answer: ${(error as Error).message}`);
        }
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return report;
}
