// Peer reads between the actors of a group (`fleet_mesh`).

export { meshRouter, type MeshRouterOptions, type PeerCheck, type PeerRead, type PeerRoute } from './mesh-router.js';
export { createPeerClient, DEFAULT_PEER_TIMEOUT_MS, type PeerClient, type PeerClientOptions, type PeerReadOptions } from './peer-client.js';
export { PeerRequestError, type PeerFailure } from './peer-request-error.js';
export { MESH_KEY_HEADER, meshKeyAuth, parseMeshKeys } from './mesh-key-auth.js';
export { checkMeshDomain, MESH_DOMAIN_PATTERN } from './mesh-domain.js';
