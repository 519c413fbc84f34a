/** One reason a value was rejected: where (a JSONPath such as `$.payload.entries[0].status`) and which rule. */
export interface ParseIssue {
  path: string;
  message: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `enum`, ...), or `readable` for a hostile value. */
  rule: string;
}

/** The answer of every parse function: the typed value, or every issue found. Never thrown. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: ParseIssue[] };

/** Formats issues on one line each, for logs and HTTP 4xx bodies. */
export function formatIssues(errors: readonly ParseIssue[]): string {
  return errors.map((issue) => `${issue.path}: ${issue.message}`).join('\n');
}
