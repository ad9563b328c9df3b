/**
 * The attribute names and operation names of the OpenTelemetry GenAI semantic conventions that
 * the actor's spans carry (https://opentelemetry.io/docs/specs/semconv/gen-ai/): spans, metric
 * labels and tests read them from here.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
} as const;

/** The values of `gen_ai.operation.name` the actor writes. */
export const GEN_AI_OPERATIONS = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool' } as const;

/** `gen_ai.provider.name` of a model that names no provider (the conventions' value for "other"). */
export const OTHER_GEN_AI_PROVIDER = '_OTHER';
