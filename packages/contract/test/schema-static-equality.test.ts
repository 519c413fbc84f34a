import type { Static } from 'typebox';
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_SCHEMAS,
  type ContractShapeName,
  type ContractShapes,
  type MessageDeltaPayload,
} from '../src/index';

// Compile-time proof that every schema and its declared TypeScript type are the same type, in both
// directions. `npx tsc -p tsconfig.json` fails on this file when a field is added, dropped, made optional or
// retyped on one side only.

/** Flattens intersections and mapped types so structurally identical types compare as identical. */
type Normalize<T> = T extends (infer U)[]
  ? Normalize<U>[]
  : T extends object
    ? { [K in keyof T]: Normalize<T[K]> }
    : T;

/** Strict identity (the usual generic-function trick): catches optional vs required, extra keys, `any`. */
type Identical<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/** Both directions of assignability, as a second, independent check. */
type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type Same<A, B> = Identical<Normalize<A>, Normalize<B>> extends true ? MutuallyAssignable<A, B> : false;

type Schemas = typeof CONTRACT_SCHEMAS;

/** Every entry must be `true`; a `false` names the shape that drifted. */
type Report = { [N in ContractShapeName]: Same<Static<Schemas[N]>, ContractShapes[N]> };
type Drifted = { [N in keyof Report]: Report[N] extends true ? never : N }[keyof Report];

type Expect<T extends true> = T;
export type AllShapesMatch = Expect<[Drifted] extends [never] ? true : false>;
export type SameKeys = Expect<
  MutuallyAssignable<keyof Schemas, ContractShapeName> extends true ? true : false
>;

// Negative controls: the checker itself must notice drift.
export type CatchesOptional = Expect<Same<{ a?: string }, { a: string }> extends false ? true : false>;
export type CatchesExtraOptional = Expect<
  Same<{ a: string; b?: number }, { a: string }> extends false ? true : false
>;
export type CatchesWidening = Expect<Same<{ a: 'x' | 'y' }, { a: 'x' }> extends false ? true : false>;

// And on a real shape: a declared type that dropped a field no longer matches its schema.
type DroppedPartId = Same<Static<Schemas['MessageDeltaPayload']>, Omit<MessageDeltaPayload, 'partId'>>;
// @ts-expect-error MessageDeltaPayload without partId is not the schema's static type.
export type DetectsRealDrift = Expect<DroppedPartId>;

describe('schema static types', () => {
  it('has one schema per named shape (the type assertions above are checked by tsc)', () => {
    expect(Object.keys(CONTRACT_SCHEMAS).length).toBe(37 + 21 + 60);
  });
});
