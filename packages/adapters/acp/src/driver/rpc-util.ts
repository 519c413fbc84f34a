import type { JsonValue } from '@agentlane/contract';
import { type HarnessFrame, isObject } from '@agentlane/engine-kit';

export function harness(frame: HarnessFrame): JsonValue {
  return frame as unknown as JsonValue;
}

/** Rejects with "<what> timed out after <ms> ms" when `promise` takes longer. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  return String(error);
}
