/**
 * `T` without its `readonly` modifiers: for an object the code builds field by field (plain
 * assignments of the optional fields that apply, rather than conditional spreads, which build and
 * copy a throwaway object each) before handing it on as `T`.
 */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
