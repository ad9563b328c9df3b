import * as v from 'valibot';
import { storableText } from '../../invoke/storable-text.js';

/** Why a person denied (or approved) a tool call: told to the model with a denial, at most 2000 characters. */
export const ApprovalReason = v.pipe(v.string(), v.maxLength(2_000, 'must be at most 2000 characters'), storableText);

/** A validated approval reason. */
export type ApprovalReason = v.InferOutput<typeof ApprovalReason>;
