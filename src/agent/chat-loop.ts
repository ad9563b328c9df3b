import type { LabelValues } from 'prom-client';
import { ActorError } from '../core/actor-error.js';
import type { Logger } from '../log/logger.js';
import type { ActorTool, ToolRunContext } from './actor-tool.js';
import { type ChatEvent, type DecidedToolCall, newApprovalId, type PendingToolCall } from '../invoke/chat-handler.js';
import type { ChatMessage, ChatModel, ModelRequest, ModelResponse, ModelToolCall, TokenUsage } from './chat-model.js';
import type { FinishReason, ToolCallRecord } from '../invoke/chat-reply.js';
import { abortReason, modelUpstreamError } from './model-errors.js';
import { watchOAuthTokens } from './watch-oauth-tokens.js';
import { NO_TRACER, type ActorTracer } from '../telemetry/actor-tracer.js';
import { GEN_AI, GEN_AI_OPERATIONS, OTHER_GEN_AI_PROVIDER } from '../telemetry/gen-ai-attributes.js';
import { withSpan } from '../telemetry/with-span.js';

/** The metrics the loop writes: `gen_ai_client_token_usage` and tool calls by name and outcome (prom-client's `Histogram` and `Counter` fit). */
export interface ChatLoopMetrics {
  readonly tokenUsage: {
    /** Records one model call's token count under its labels. */
    observe(
      labels: LabelValues<
        'gen_ai_operation_name' | 'gen_ai_provider_name' | 'gen_ai_token_type' | 'gen_ai_request_model'
      >,
      value: number,
    ): void;
  };
  readonly toolCalls: {
    /** Counts one tool call under its tool and outcome. */
    inc(labels: LabelValues<'tool' | 'outcome'>): void;
  };
}

/** Options of one run of the chat loop. */
export interface ChatLoopOptions {
  readonly model: ChatModel;
  readonly tools: readonly ActorTool[];
  /** Most model calls whose tool calls are run; the call after the last one must answer in text. */
  readonly maxToolSteps: number;
  /** The conversation so far, ending with the new message. */
  readonly messages: readonly ChatMessage[];
  readonly context: ToolRunContext;
  /** Told each event of the turn as it happens: text, tool calls and results, approvals. */
  readonly onEvent?: (event: ChatEvent) => void;
  readonly metrics?: ChatLoopMetrics;
  readonly logger?: Logger;
  /** Traces each model call (`chat <model>`) and tool call (`execute_tool <tool>`) as a child of the active span. */
  readonly tracer?: ActorTracer;
  /** The run the turn is part of: the approvals it asks for name it. */
  readonly runId?: string;
  /** Calls decided by a person, which `messages` ends asking for: run (approved) or answered as denied before the first model call. */
  readonly decided?: readonly DecidedToolCall[];
}

/** What one turn of the loop produced. */
export interface ChatLoopResult {
  /** The text of every model call of the turn, joined by a blank line. */
  readonly content: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage;
  readonly model: string;
  /** The messages the turn added after the new message: assistant tool calls, tool results, the answer. */
  readonly added: readonly ChatMessage[];
  /** Calls that wait for a person's approval: the turn stopped after the model call that made them. */
  readonly pending?: readonly PendingToolCall[];
}

/** Tool output longer than this is cut before the model sees it. */
export const MAX_TOOL_OUTPUT_CHARS = 50_000;

/** The span attribute of a tool call a person decided on: `approved` or `denied`. */
const TOOL_APPROVAL_ATTRIBUTE = 'actorkit.tool.approval';

/** The `tool` label of a call to a tool the model made up: the label set stays bounded. */
const UNKNOWN_TOOL_LABEL = 'unknown';

type ToolOutcome = 'ok' | 'error' | 'invalid_arguments' | 'unknown_tool' | 'denied';

interface ToolRun {
  readonly record: ToolCallRecord;
  readonly outcome: ToolOutcome;
  /** What the model is told. */
  readonly content: string;
}

/** A failed call; the model is told the error and, for an `ActorError`, its code (e.g. `oauth_not_connected`). */
const failed = (call: ModelToolCall, args: unknown, outcome: ToolOutcome, error: string, code?: string): ToolRun => ({
  record: { id: call.id, name: call.name, arguments: args, output: null, status: 'error', error },
  outcome,
  content: JSON.stringify(code === undefined ? { error } : { error, code }),
});

const clip = (text: string) =>
  text.length > MAX_TOOL_OUTPUT_CHARS
    ? `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}… [cut at ${MAX_TOOL_OUTPUT_CHARS} characters]`
    : text;

function parseArguments(raw: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, error: `The arguments are not valid JSON (${(error as Error).message}); send one JSON object` };
  }
}

/** Runs one tool call in its `execute_tool` span; an outcome other than `ok` marks the span failed with the outcome as `error.type`. */
function runTracedTool(
  call: ModelToolCall,
  tools: ReadonlyMap<string, ActorTool>,
  options: ChatLoopOptions,
  decision?: DecidedToolCall,
): Promise<ToolRun> {
  const tool = tools.get(call.name);
  const attributes = {
    [GEN_AI.operationName]: GEN_AI_OPERATIONS.executeTool,
    [GEN_AI.toolName]: call.name,
    [GEN_AI.toolCallId]: call.id,
    [GEN_AI.toolType]: 'function',
    [GEN_AI.toolDescription]: tool?.description,
    [GEN_AI.conversationId]: options.context.sessionId,
    // A call a person decided on: its span says how (the audit's span attribute).
    [TOOL_APPROVAL_ATTRIBUTE]: decision === undefined ? undefined : decision.approved ? 'approved' : 'denied',
  };
  return withSpan(
    options.tracer ?? NO_TRACER,
    `${GEN_AI_OPERATIONS.executeTool} ${call.name}`,
    { kind: 'internal', attributes },
    async (span) => {
      const run =
        decision?.approved === false
          ? deniedRun(call, decision)
          : await runTool(call, tools, options, (options.tracer ?? NO_TRACER).traceHeaders(), decision !== undefined);
      if (run.outcome !== 'ok') span.fail(run.outcome, run.record.error);
      return run;
    },
  );
}

async function runTool(
  call: ModelToolCall,
  tools: ReadonlyMap<string, ActorTool>,
  options: ChatLoopOptions,
  traceHeaders: Readonly<Record<string, string>>,
  decided: boolean,
): Promise<ToolRun> {
  const parsed = parseArguments(call.arguments);
  const args = parsed.ok ? parsed.value : call.arguments;
  options.onEvent?.({
    type: 'tool-call',
    id: call.id,
    name: call.name,
    arguments: args,
    readOnly: tools.get(call.name)?.readOnly === true,
    ...(decided ? { decided } : {}),
  });
  if (!parsed.ok) return failed(call, args, 'invalid_arguments', parsed.error);
  const tool = tools.get(call.name);
  if (tool === undefined)
    return failed(
      call,
      args,
      'unknown_tool',
      `There is no tool named ${call.name}; the tools are: ${[...tools.keys()].join(', ') || 'none'}`,
    );
  const checked = tool.parseArgs(args);
  if (!checked.success)
    return failed(call, args, 'invalid_arguments', `Invalid arguments: ${checked.problems.join('; ')}`);
  const watched = watchOAuthTokens({ ...options.context, traceHeaders });
  try {
    const output = await tool.runAsync(checked.output, watched.context);
    const serialised = typeof output === 'string' ? output : JSON.stringify(output ?? null);
    return {
      record: { id: call.id, name: call.name, arguments: args, output: output ?? null, status: 'ok' },
      outcome: 'ok',
      content: clip(serialised),
    };
  } catch (error) {
    if (options.context.signal.aborted) throw abortReason(options.context.signal);
    const message = watched.redact(error instanceof Error ? error.message : String(error));
    options.logger?.warn('tool_call_failed', {
      tool: call.name,
      request_id: options.context.requestId,
      error: message,
    });
    return failed(
      call,
      args,
      'error',
      message || 'The tool failed',
      error instanceof ActorError ? error.code : undefined,
    );
  }
}

/**
 * The call as one waiting for a person's approval, when its tool asks for it on these
 * (valid) arguments: its `tool-call` and `tool-approval-request` events are sent. Undefined for
 * any other call, which runs at once (bad arguments and unknown tools are answered as errors).
 */
async function heldForApproval(
  call: ModelToolCall,
  tools: ReadonlyMap<string, ActorTool>,
  options: ChatLoopOptions,
): Promise<PendingToolCall | undefined> {
  const tool = tools.get(call.name);
  const parsed = parseArguments(call.arguments);
  if (tool === undefined || !parsed.ok) return undefined;
  const checked = tool.parseArgs(parsed.value);
  if (!checked.success || !(await asksApproval(tool, checked.output, options))) return undefined;
  const pending = {
    approvalId: newApprovalId(options.runId),
    toolCallId: call.id,
    name: call.name,
    arguments: parsed.value,
  };
  options.onEvent?.({
    type: 'tool-call',
    id: call.id,
    name: call.name,
    arguments: parsed.value,
    readOnly: tool.readOnly,
  });
  options.onEvent?.({ type: 'tool-approval-request', approvalId: pending.approvalId, toolCallId: call.id });
  return pending;
}

/** Whether the tool's rule asks a person about these arguments; a rule that throws asks (and is logged). */
async function asksApproval(tool: ActorTool, args: unknown, options: ChatLoopOptions): Promise<boolean> {
  try {
    return await tool.needsApproval(args, options.context);
  } catch (error) {
    options.logger?.warn('tool_approval_rule_failed', {
      tool: tool.name,
      request_id: options.context.requestId,
      error,
    });
    return true;
  }
}

/** A decided call: run when approved, else answered to the model as denied, with the reason. */
function runDecided(decision: DecidedToolCall, tools: ReadonlyMap<string, ActorTool>, options: ChatLoopOptions) {
  const call: ModelToolCall = {
    id: decision.toolCallId,
    name: decision.name,
    arguments: JSON.stringify(decision.arguments ?? {}),
  };
  return runTracedTool(call, tools, options, decision);
}

/** What the model is told of a call a person denied: an error naming the reason, code `approval_denied`. */
function deniedRun(call: ModelToolCall, decision: DecidedToolCall): ToolRun {
  const why = decision.reason === undefined || decision.reason === '' ? '' : `: ${decision.reason}`;
  return failed(call, decision.arguments, 'denied', `A person denied this tool call${why}`, 'approval_denied');
}

/** One model call in its `chat <model>` span, with the request's and the response's `gen_ai.*` attributes. */
function callTracedModel(options: ChatLoopOptions, request: ModelRequest): Promise<ModelResponse> {
  const tracer = options.tracer ?? NO_TRACER;
  if (!tracer.enabled) return callModel(options, request);
  const attributes = {
    [GEN_AI.operationName]: GEN_AI_OPERATIONS.chat,
    [GEN_AI.providerName]: options.model.provider ?? OTHER_GEN_AI_PROVIDER,
    [GEN_AI.requestModel]: options.model.name,
    [GEN_AI.conversationId]: options.context.sessionId,
  };
  return withSpan(
    tracer,
    `${GEN_AI_OPERATIONS.chat} ${options.model.name}`,
    { kind: 'client', attributes },
    async (span) => {
      const response = await callModel(
        options,
        tracer.enabled ? { ...request, traceHeaders: tracer.traceHeaders() } : request,
      );
      span.setAttributes({
        [GEN_AI.responseModel]: response.model ?? options.model.name,
        [GEN_AI.inputTokens]: response.usage.inputTokens,
        [GEN_AI.outputTokens]: response.usage.outputTokens,
        [GEN_AI.finishReasons]: [response.finishReason],
      });
      return response;
    },
  );
}

async function callModel(options: ChatLoopOptions, request: ModelRequest): Promise<ModelResponse> {
  try {
    if (options.onEvent === undefined) return await options.model.generate(request);
    let response: ModelResponse | undefined;
    for await (const part of options.model.stream(request)) {
      if (part.type === 'text-delta') options.onEvent({ type: 'text-delta', delta: part.delta });
      else response = part.response;
    }
    if (response === undefined) throw modelUpstreamError('The model stream ended without a finish');
    return response;
  } catch (error) {
    if (request.signal.aborted) throw abortReason(request.signal);
    if (error instanceof ActorError) throw error;
    throw modelUpstreamError(`The model failed: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

/** The labels of `gen_ai_client_token_usage` for one model, input and output. */
interface TokenLabels {
  readonly input: Readonly<Record<string, string>>;
  readonly output: Readonly<Record<string, string>>;
}

/** Token-usage labels by model: made once per model, not twice per model call. */
const tokenLabelsByModel = new WeakMap<ChatModel, TokenLabels>();

function tokenLabelsOf(model: ChatModel): TokenLabels {
  let labels = tokenLabelsByModel.get(model);
  if (labels === undefined) {
    const common = {
      gen_ai_operation_name: GEN_AI_OPERATIONS.chat,
      gen_ai_provider_name: model.provider ?? OTHER_GEN_AI_PROVIDER,
      gen_ai_request_model: model.name,
    };
    labels = { input: { ...common, gen_ai_token_type: 'input' }, output: { ...common, gen_ai_token_type: 'output' } };
    tokenLabelsByModel.set(model, labels);
  }
  return labels;
}

/**
 * Runs one chat turn: calls the model, runs the tools it asks for (unknown tools, malformed or
 * invalid arguments and tool errors go back to the model as the tool's answer), and repeats
 * until the model answers in text or `maxToolSteps` model calls ran tools — then one last call
 * asks for text only. A call whose tool needs approval is not run: the turn stops after that
 * model call's other calls, with the call `pending`; the turn that continues it gets the decisions
 * (`decided`) and runs or denies them first. Model failures reject with their `ActorError` (502/504).
 */
export async function runChatLoop(options: ChatLoopOptions): Promise<ChatLoopResult> {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const definitions = options.tools.map((tool) => tool.definition);
  const added: ChatMessage[] = [];
  const records: ToolCallRecord[] = [];
  const texts: string[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let model = options.model.name;
  const record = (call: ModelToolCall, run: ToolRun) => {
    options.metrics?.toolCalls.inc({
      tool: tools.has(call.name) ? call.name : UNKNOWN_TOOL_LABEL,
      outcome: run.outcome,
    });
    options.onEvent?.(
      run.outcome === 'denied'
        ? { type: 'tool-result', record: run.record, denied: true }
        : { type: 'tool-result', record: run.record },
    );
    records.push(run.record);
    added.push({ role: 'tool', toolCallId: call.id, name: call.name, content: run.content });
  };
  for (const decision of options.decided ?? []) {
    const run = await runDecided(decision, tools, options);
    record({ id: decision.toolCallId, name: decision.name, arguments: '' }, run);
  }
  for (let step = 0; ; step += 1) {
    const last = step >= options.maxToolSteps;
    options.onEvent?.({ type: 'step-start' });
    const response = await callTracedModel(options, {
      messages: [...options.messages, ...added],
      tools: definitions,
      toolChoice: last ? 'none' : 'auto',
      signal: options.context.signal,
    });
    model = response.model ?? model;
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    if (options.metrics !== undefined) {
      const labels = tokenLabelsOf(options.model);
      options.metrics.tokenUsage.observe(labels.input, response.usage.inputTokens);
      options.metrics.tokenUsage.observe(labels.output, response.usage.outputTokens);
    }
    if (response.text !== '') texts.push(response.text);
    if (response.toolCalls.length === 0 || last) {
      added.push({ role: 'assistant', content: response.text });
      const finishReason = response.toolCalls.length > 0 ? 'tool_calls' : response.finishReason;
      return { content: texts.join('\n\n'), toolCalls: records, finishReason, usage, model, added };
    }
    added.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    const pending: PendingToolCall[] = [];
    for (const call of response.toolCalls) {
      const held = await heldForApproval(call, tools, options);
      if (held !== undefined) pending.push(held);
      else record(call, await runTracedTool(call, tools, options));
    }
    if (pending.length > 0)
      return {
        content: texts.join('\n\n'),
        toolCalls: records,
        finishReason: 'tool_calls',
        usage,
        model,
        added,
        pending,
      };
  }
}
