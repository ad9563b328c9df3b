import { join } from 'node:path';

/** The port `actorkit platform` answers on unless `--port` says otherwise. */
export const DEFAULT_PLATFORM_PORT = 8790;

/** The state folder, relative to the working directory, unless `--state-dir` names another. */
export const DEFAULT_STATE_DIR = join('.actorkit', 'platform');

/** The secrets file in the state folder, unless `--secrets` names another. */
export const DEFAULT_SECRETS_FILE = 'secrets.env';

/** The mesh group every hosted mesh actor joins unless `--mesh-group` puts it in another. */
export const DEFAULT_MESH_GROUP = 'default';

/** How long a client of the gateway or a service address may take to send a request's headers (Node's `headersTimeout`): then 408 and the socket closes. */
export const GATEWAY_HEADERS_TIMEOUT_MS = 10_000;

/** How long a client of the gateway or a service address may take to send a whole request, body included (Node's `requestTimeout`). */
export const GATEWAY_REQUEST_TIMEOUT_MS = 60_000;
