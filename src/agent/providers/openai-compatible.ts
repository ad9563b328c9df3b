import { defineModelProvider } from '../model-provider.js';
import { createOpenAICompatibleModel } from '../openai-compatible-model.js';

/** A server that speaks OpenAI's Chat Completions API, at `LLM_BASE_URL` (the OpenAI API when unset). */
export const openAICompatibleProvider = defineModelProvider({
  name: 'openai-compatible',
  description:
    "a server that speaks OpenAI's Chat Completions API at `LLM_BASE_URL` (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, a gateway…), asked for `LLM_MODEL`",
  needs: ['LLM_MODEL'],
  createModel: (settings, { logger }) =>
    createOpenAICompatibleModel({
      model: settings.model,
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      headers: settings.headers,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      logger,
    }),
});
