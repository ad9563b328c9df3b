import * as v from 'valibot';

/** The body of `POST /panel/<slug>/action`: the action's name and its payload (`{}` when left out). */
export const PanelActionRequest = v.strictObject({
  action: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters')),
  payload: v.optional(v.unknown(), () => ({})),
});

/** A validated `POST /panel/<slug>/action` body. */
export type PanelActionRequest = v.InferOutput<typeof PanelActionRequest>;
