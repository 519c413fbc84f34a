/**
 * One benchmark figure, in github-action-benchmark's custom format (`extra` is free text).
 * `ratio` > 1 means agentlane is better than the baseline measured in the same run.
 */
export interface BenchResult {
  name: string;
  unit: string;
  value: number;
  extra?: string;
  ratio?: number;
}

/** What every `src/suites/<area>.bench.ts` exports. */
export interface BenchSuite {
  run(): Promise<BenchResult[]>;
}
