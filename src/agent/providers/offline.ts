import { defineModelProvider } from '../model-provider.js';
import { createOfflineModel } from '../offline-model.js';

/** The deterministic local model: it answers without a server. */
export const offlineProvider = defineModelProvider({
  name: 'offline',
  description:
    'the deterministic local model: it answers without a server, echoes the message and calls a tool when told `use tool <name> with {…}` ([The offline model](#the-offline-model))',
  needs: [],
  createModel: () => createOfflineModel(),
});
