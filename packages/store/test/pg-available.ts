import { pgAvailable as available } from '@agentlane/sql/testing';

export { PG_URL } from '@agentlane/sql/testing';

/** The shared check (printed skip locally, a failure under CI=true), labelled for the store. */
export const pgAvailable = (): Promise<boolean> => available('store');
