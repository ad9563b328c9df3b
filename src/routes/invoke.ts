import { Hono } from 'hono';
import * as v from 'valibot';
import type { ChatReply } from '../agent/chat-reply.js';
import { ChatRequest, TenantId } from '../agent/chat-request.js';
import type { ActorContext, ActorEnv } from '../app/actor-context.js';
import { ActorError } from '../app/actor-error.js';
import { readJsonBody } from '../app/read-json-body.js';

/** Tenant when neither the platform header nor the request metadata names one. */
export const DEFAULT_TENANT = 'default';

/** The tenant of a request: `X-Tenant-Id` (set by the platform), else `metadata.tenant_id`, else `default`. */
export function resolveTenant(header: string | undefined, request: ChatRequest): string {
  if (header !== undefined) {
    const parsed = v.safeParse(TenantId, header);
    if (!parsed.success) throw new ActorError(400, 'invalid_header', 'Invalid header', { detail: `X-Tenant-Id ${parsed.issues[0].message}` });
    return header;
  }
  const fromMetadata = request.metadata?.tenant_id;
  if (fromMetadata === undefined) return DEFAULT_TENANT;
  const parsed = v.safeParse(TenantId, fromMetadata);
  if (!parsed.success) {
    throw new ActorError(422, 'validation_failed', 'Validation failed', { detail: 'The request body has 1 invalid field', errors: [{ pointer: '/metadata/tenant_id', detail: parsed.issues[0].message }] });
  }
  return parsed.output;
}

function refuseWhenNotServing(ctx: ActorContext): void {
  const phase = ctx.lifecycle.phase;
  if (phase === 'ready') return;
  if (phase === 'starting') throw new ActorError(503, 'starting', 'The actor is starting', { detail: 'Try again in a moment', headers: { 'Retry-After': '1' } });
  throw new ActorError(503, 'draining', 'The actor is shutting down', { detail: 'Send the request to another replica', headers: { 'Retry-After': '1', Connection: 'close' } });
}

/** `POST /agent/invoke`: validates the chat request, runs the chat handler, counts the invoke. */
export function invokeRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>().post('/agent/invoke', async function invoke(c) {
    refuseWhenNotServing(ctx);
    const request = await readJsonBody(c.req.raw, ChatRequest);
    const tenantId = resolveTenant(c.req.header('X-Tenant-Id'), request);
    const started = performance.now();
    const startedAt = new Date();
    const observe = (outcome: string) => {
      ctx.metrics.invocations.inc({ outcome });
      ctx.metrics.invokeDuration.observe({ outcome }, (performance.now() - started) / 1000);
    };
    let result;
    try {
      result = await ctx.chatHandler({ request, tenantId, requestId: c.get('requestId'), signal: c.req.raw.signal, settings: ctx.settings.values });
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const outcome = error instanceof ActorError ? error.code : 'error';
      observe(outcome);
      await ctx.stats.record({
        tenantId, userIdentifier: request.user_identifier, sessionId: request.session_id, outcome: 'error',
        inputTokens: 0, outputTokens: 0, toolCalls: 0, latencyMs, finishedAt: new Date().toISOString(),
      });
      throw error;
    }
    const latencyMs = Math.round(performance.now() - started);
    const { persisted } = await ctx.stats.record({
      tenantId,
      userIdentifier: request.user_identifier,
      sessionId: request.session_id,
      outcome: 'success',
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      toolCalls: result.toolCalls.length,
      latencyMs,
      finishedAt: new Date().toISOString(),
    });
    observe('success');
    const metadata = { ...result.metadata, ...(persisted ? {} : { stats_deferred: true }) };
    const reply: ChatReply = {
      id: `inv_${crypto.randomUUID()}`,
      session_id: request.session_id,
      status: 'completed',
      message: { id: `msg_${crypto.randomUUID()}`, role: 'assistant', content: result.content },
      tool_calls: [...result.toolCalls],
      finish_reason: result.finishReason,
      usage: {
        input_tokens: result.usage.inputTokens,
        output_tokens: result.usage.outputTokens,
        total_tokens: result.usage.inputTokens + result.usage.outputTokens,
      },
      model: result.model,
      created_at: startedAt.toISOString(),
      latency_ms: latencyMs,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
    return c.json(reply);
  });
}
