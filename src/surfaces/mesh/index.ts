// Peer reads between the actors of a group (`fleet_mesh`).

export { meshRouter, type MeshRouterOptions, type PeerCheck, type PeerRead, type PeerRoute } from './mesh-router.js';
export { createPeerClient, type PeerClient, type PeerClientOptions, type PeerReadOptions } from './peer-client.js';
export { PeerRequestError, type PeerFailure } from './peer-request-error.js';
export { MESH_KEY_HEADER } from './mesh-key-auth.js';
