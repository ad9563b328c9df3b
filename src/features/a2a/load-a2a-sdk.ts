import { StartupRefusal } from '../../environment/startup-refusal.js';

/** The parts of `@a2a-js/sdk` the A2A routes use: the protocol's types and codecs, its errors, and the JSON-RPC transport handler. */
export type A2aSdk = typeof import('@a2a-js/sdk') &
  typeof import('@a2a-js/sdk/errors') &
  Pick<typeof import('@a2a-js/sdk/server'), 'JsonRpcTransportHandler' | 'ServerCallContext' | 'validateVersion'>;

/** What `loadA2aSdk` imports; a test swaps it to play an actor without the package. */
export type A2aSdkImporter = () => Promise<A2aSdk>;

/** Imports the SDK's modules (Fetch-only: its server core needs no express); only an actor with `expose_a2a` on calls this. */
const importA2aSdk: A2aSdkImporter = async () => {
  const [types, errors, server] = await Promise.all([
    import('@a2a-js/sdk'),
    import('@a2a-js/sdk/errors'),
    import('@a2a-js/sdk/server'),
  ]);
  return {
    ...types,
    ...errors,
    JsonRpcTransportHandler: server.JsonRpcTransportHandler,
    ServerCallContext: server.ServerCallContext,
    validateVersion: server.validateVersion,
  };
};

/**
 * Loads `@a2a-js/sdk` (an optional peer) for the A2A routes. A missing package is a
 * `StartupRefusal` that says how to install it, so the actor exits with one line instead of
 * serving routes that cannot work.
 * @param importer what imports the SDK (the real dynamic import by default)
 */
export async function loadA2aSdk(importer: A2aSdkImporter = importA2aSdk): Promise<A2aSdk> {
  try {
    return await importer();
  } catch (error) {
    throw new StartupRefusal(
      'expose_a2a',
      `features.exposeA2a is on but @a2a-js/sdk cannot be loaded (${(error as Error).message.split('\n', 1)[0]}): run \`npm install @a2a-js/sdk\` in the actor, or turn expose_a2a off`,
      { cause: error },
    );
  }
}
