import * as v from 'valibot';
import { ApprovalAnswer } from '../../invoke/chat-request.js';

/** Why a person denied (or approved) a tool call: told to the model with a denial; the rule of `ApprovalAnswer.reason`. */
export const ApprovalReason = v.unwrap(ApprovalAnswer.entries.reason);

/** A validated approval reason. */
export type ApprovalReason = v.InferOutput<typeof ApprovalReason>;
