import { join } from 'node:path';

/** The port `actorkit platform` answers on unless `--port` says otherwise. */
export const DEFAULT_PLATFORM_PORT = 8790;

/** The state folder, relative to the working directory, unless `--state-dir` names another. */
export const DEFAULT_STATE_DIR = join('.actorkit', 'platform');

/** The secrets file in the state folder, unless `--secrets` names another. */
export const DEFAULT_SECRETS_FILE = 'secrets.env';

/** The mesh group every hosted mesh actor joins unless `--mesh-group` puts it in another. */
export const DEFAULT_MESH_GROUP = 'default';
