import { importOptionalPeer, type OptionalPeer } from '../../environment/startup-refusal.js';

/**
 * The parts of `@modelcontextprotocol/sdk` the `/mcp` surface uses: the low-level server, its
 * Fetch transport, the message and request schemas, its batch limit, and its own JSON Schema
 * conversion of those schemas (for the document).
 */
export type McpServerSdk = typeof import('@modelcontextprotocol/sdk/server/index.js') &
  typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') &
  typeof import('@modelcontextprotocol/sdk/types.js') &
  typeof import('@modelcontextprotocol/sdk/server/requestBody.js') &
  typeof import('@modelcontextprotocol/sdk/server/zod-json-schema-compat.js');

/** What `loadMcpServerSdk` imports; a test swaps it to play an actor without the package. */
export type McpSdkImporter = () => Promise<McpServerSdk>;

/** Imports the SDK's server modules; only an actor with `expose_mcp` on ever calls this. */
const importMcpServerSdk: McpSdkImporter = async () => {
  const [server, transport, types, requestBody, jsonSchema] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/requestBody.js'),
    import('@modelcontextprotocol/sdk/server/zod-json-schema-compat.js'),
  ]);
  return { ...server, ...transport, ...types, ...requestBody, ...jsonSchema };
};

/** The package and the option that needs it, as the refusal and its test name them. */
export const MCP_SDK_PEER: OptionalPeer = {
  packageName: '@modelcontextprotocol/sdk',
  option: 'expose_mcp',
  feature: 'exposeMcp',
};

/**
 * Loads `@modelcontextprotocol/sdk` (an optional peer) for `/mcp`. A missing package is a
 * `StartupRefusal` that says how to install it (`importOptionalPeer`).
 * @param importer what imports the SDK (the real dynamic import by default)
 */
export async function loadMcpServerSdk(importer: McpSdkImporter = importMcpServerSdk): Promise<McpServerSdk> {
  return importOptionalPeer(importer, MCP_SDK_PEER);
}
