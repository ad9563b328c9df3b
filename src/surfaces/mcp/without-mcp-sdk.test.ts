// An actor whose @modelcontextprotocol/sdk cannot be imported: the SDK is an optional peer.
import { vi } from 'vitest';
import { describeWithoutOptionalPeer } from '../../../test/support/without-optional-peer.js';
import { MCP_SDK_PEER } from './load-mcp-server-sdk.js';

const imports = vi.hoisted(() => ({ attempts: 0 }));
vi.mock('@modelcontextprotocol/sdk/server/index.js', () => {
  imports.attempts += 1;
  throw new Error("Cannot find package '@modelcontextprotocol/sdk' imported from actorkit");
});

describeWithoutOptionalPeer(MCP_SDK_PEER, imports);
