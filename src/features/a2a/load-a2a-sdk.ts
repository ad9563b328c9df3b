import { importOptionalPeer, type OptionalPeer } from '../../environment/startup-refusal.js';

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

/** The package and the option that needs it, as the refusal and its test name them. */
export const A2A_SDK_PEER: OptionalPeer = { packageName: '@a2a-js/sdk', option: 'expose_a2a', feature: 'exposeA2a' };

/**
 * Loads `@a2a-js/sdk` (an optional peer) for the A2A routes. A missing package is a
 * `StartupRefusal` that says how to install it (`importOptionalPeer`).
 * @param importer what imports the SDK (the real dynamic import by default)
 */
export async function loadA2aSdk(importer: A2aSdkImporter = importA2aSdk): Promise<A2aSdk> {
  return importOptionalPeer(importer, A2A_SDK_PEER);
}
