// An actor whose @a2a-js/sdk cannot be imported: the SDK is an optional peer.
import { vi } from 'vitest';
import { describeWithoutOptionalPeer } from '../../../test/support/without-optional-peer.js';
import { A2A_SDK_PEER } from './load-a2a-sdk.js';

const imports = vi.hoisted(() => ({ attempts: 0 }));
vi.mock('@a2a-js/sdk/server', () => {
  imports.attempts += 1;
  throw new Error("Cannot find package '@a2a-js/sdk' imported from actorkit");
});

describeWithoutOptionalPeer(A2A_SDK_PEER, imports);
