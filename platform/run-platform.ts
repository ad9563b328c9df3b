import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  toCliFailure,
  CliError,
  type CliFailure,
  resolveCliIo,
  type CliIo,
  registrationSteps,
} from '../cli/library.js';
import { actorDatabase, ensureActorSchema, type ActorDatabase } from './actor-database.js';
import { buildActor, installWhenMissing } from './build-actor.js';
import { exposedOperations, hasEdge } from './gateway/external-edge.js';
import { edgeBasePath, relayPanelPath } from './gateway/gateway-paths.js';
import { createPlatformGateway } from './gateway/index.js';
import { panelSlugs } from './gateway/panel-relay.js';
import { keepKey } from './kept-key-file.js';
import { meshGroupKey } from './mesh-group-key.js';
import { platformCredentials } from './platform-credentials.js';
import type { HostedActorSummary, PlatformReady } from './platform-ready.js';
import { platformReadyText } from './platform-ready-text.js';
import {
  DEFAULT_MESH_GROUP,
  DEFAULT_PLATFORM_PORT,
  DEFAULT_SECRETS_FILE,
  DEFAULT_STATE_DIR,
} from './platform-defaults.js';
import {
  registerActor,
  refuseDuplicateRefs,
  type RegisteredActor,
  type RegistrationFailure,
} from './register-actor.js';
import { listenFetch, type FetchListener } from './fetch-listener.js';
import { PLATFORM_SECRET_HEADER } from './forward-request.js';
import { ANY_FREE_PORT, PortRange } from './port-range.js';
import { actorEnvironment } from './replica-environment.js';
import { processRunner, type ReplicaRunner, ReplicaSlot } from './replica-slot.js';
import { containerRunner, type HostedImage, imageDataVolume, registerImage } from './hosted-image.js';
import { readSecretsFile } from './secrets-file.js';
import { noReadyReplica, SupervisedPool } from './supervised-pool.js';
import { EXIT_WITH_PARENT_PRELOAD } from '../cli/library.js';
import { constantTimeEqual, requestIdFor } from '../src/http/index.js';
import { ActorError, ENVIRONMENT_VARIABLES, MESH_KEY_HEADER, problemResponse } from '../src/index.js';

/** Where the run's secret is kept for the owner, mode 0600, replaced at each run: `curl -H "X-Platform-Secret: $(cat …)"` reaches a replica. */
const PLATFORM_SECRET_FILE = 'platform-secret';
/** How long a replica may take to drain before it is killed. */
const DRAIN_GRACE_MS = 15_000;
/** How long the platform waits for every replica's first ready probe before it says it is up anyway. */
const READY_WAIT_MS = 60_000;

/** The inputs of {@link runPlatform}. */
export interface RunPlatformOptions {
  /** The gateway's port on 127.0.0.1; default {@link DEFAULT_PLATFORM_PORT}; `0` picks a free one. */
  readonly port?: number;
  /**
   * Where the replicas and the service addresses listen on 127.0.0.1, as `first-last` (e.g.
   * `9100-9199`, lowest free port first); default any free port.
   */
  readonly replicaPorts?: string;
  /** Replicas per actor; default each actor's `deployment.replicas.min`. */
  readonly replicas?: number;
  /**
   * Published images to host beside the folders (`actorkit platform --image <ref>`): each is pulled
   * with the engine found (podman, then docker, or `ACTORKIT_CONTAINER_CLI`), registered from the
   * `config.json` it carries and run as containers on the host's network.
   */
  readonly images?: readonly string[];
  /** The PostgreSQL every replica shares (one schema per actor); default `DATABASE_URL`, else SQLite (one replica). */
  readonly databaseUrl?: string;
  /** The secrets file; default `secrets.env` in the state folder. */
  readonly secretsFile?: string;
  /** Where the owner token, the edge keys, generated mesh keys and SQLite files are kept; default `.actorkit/platform`. */
  readonly stateDir?: string;
  /** The mesh group of an actor by ref; the others are in the group `default`. */
  readonly meshGroups?: Readonly<Record<string, string>>;
  /** How long a client of the gateway or a service address may take to send the headers; default `GATEWAY_HEADERS_TIMEOUT_MS` (10 s). */
  readonly headersTimeoutMs?: number;
  /** How long it may take to send a whole request, body included; default `GATEWAY_REQUEST_TIMEOUT_MS` (60 s). */
  readonly requestTimeoutMs?: number;
  /** Print one JSON object on standard output when up (progress and reports go to standard error). */
  readonly json?: boolean;
  /** Stops the platform like Ctrl-C (tests, scripts); without it, SIGINT and SIGTERM stop it. */
  readonly signal?: AbortSignal;
  /** Called once every actor is up, with what `--json` prints and the pools (scripts). */
  readonly onReady?: (ready: PlatformReady, pools: ReadonlyMap<string, SupervisedPool>) => void;
  readonly io?: Partial<CliIo>;
}

/** How a platform run ended: drained and stopped. */
export interface RunPlatformResult {
  readonly status: 'ok';
  readonly url: string;
  readonly actors: readonly HostedActorSummary[];
}

/** One actor on its way up: what the platform decided for it. */
interface HostedActor extends RegisteredActor {
  /** The published image it runs, when it came from `--image` rather than a folder. */
  readonly image?: HostedImage;
  readonly replicas: number;
  readonly database: ActorDatabase;
  readonly meshGroup: string | undefined;
  readonly service: FetchListener;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** A stop asked for by SIGINT/SIGTERM or an abort. */
interface StopRequest {
  /** Resolves at the first signal. */
  readonly requested: Promise<void>;
  /** Whether it has come. */
  readonly stopped: boolean;
  /** Stops swallowing later signals. */
  release(): void;
}

/** Resolves at the first SIGINT/SIGTERM (or abort); later signals are swallowed until `release()`, so a second Ctrl-C does not cut the drain short. */
function stopRequest(signal: AbortSignal | undefined): StopRequest {
  let stopped = false;
  let stop: () => void = () => undefined;
  const requested = new Promise<void>((resolveStop) => (stop = resolveStop)).then(() => {
    stopped = true;
  });
  const onSignal = () => stop();
  if (signal === undefined) for (const name of STOP_SIGNALS) process.on(name, onSignal);
  else if (signal.aborted) stop();
  else signal.addEventListener('abort', onSignal, { once: true });
  return {
    requested,
    get stopped() {
      return stopped;
    },
    release: () => STOP_SIGNALS.forEach((name) => process.off(name, onSignal)),
  };
}

/** The image's SQLite folder, or a refusal when it sets none (such an image needs PostgreSQL). */
function imageDataDir(image: HostedImage): string {
  if (image.dataDir !== undefined) return image.dataDir;
  throw new CliError(
    'refused',
    'bad_usage',
    `${image.ref} sets no DATA_DIR for SQLite: give the platform a PostgreSQL (--database-url or DATABASE_URL)`,
  );
}

/**
 * How the replicas of one actor are started. A folder is built first (`npm run build`) and each
 * replica is `node dist/main.node.js` in it; an image's replica is a container of it, named after
 * the actor, the replica and the run, with the SQLite volume when the actor keeps SQLite.
 */
async function replicaRunners(
  actor: HostedActor,
  environment: Readonly<Record<string, string>>,
  run: { stateDir: string; platformSecret: string; io: CliIo; say: (text: string) => void },
): Promise<(index: number) => ReplicaRunner> {
  const instance = (index: number) => ({ ...environment, INSTANCE_ID: `${actor.ref}-${index}` });
  const image = actor.image;
  if (image !== undefined) {
    const runId = run.platformSecret
      .slice(0, 6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x');
    const volume =
      actor.database.engine === 'sqlite'
        ? { source: imageDataVolume(actor.ref, run.stateDir), target: imageDataDir(image) }
        : undefined;
    return (index) =>
      containerRunner({
        image,
        name: `actorkit-${actor.ref}-${index}-${runId}`,
        env: instance(index),
        engineEnv: run.io.env,
        ...(volume === undefined ? {} : { volume }),
      });
  }
  run.say(`actorkit platform: building ${actor.ref} (${actor.dir})…`);
  const entry = await buildActor(
    actor.dir,
    (line) => run.io.stderr.write(`[${actor.ref}] build: ${line}\n`),
    run.io.env,
  );
  return (index) =>
    processRunner({
      cwd: actor.dir,
      command: [process.execPath, '--import', EXIT_WITH_PARENT_PRELOAD, entry],
      env: instance(index),
    });
}

/** The end of a run stopped before every actor was up (what did start is drained). */
function interrupted(): CliError {
  return new CliError('failed', 'interrupted', 'stopped before every actor was up');
}

function imageOf(actor: HostedActor): string {
  if (actor.image !== undefined) return actor.image.ref;
  const repo = actor.config.deployment.image_repo;
  return repo === undefined ? `${actor.dir} (built locally)` : `${repo}:v${actor.config.actor.version}`;
}

async function waitUntilReady(pools: readonly SupervisedPool[], stop: StopRequest): Promise<void> {
  const deadline = Date.now() + READY_WAIT_MS;
  while (!stop.stopped && Date.now() < deadline && !pools.every((pool) => pool.allReady()))
    await new Promise((wait) => setTimeout(wait, 100));
}

/**
 * `actorkit platform`: hosts actor folders as the platform does. Registers each (validate's
 * checks; refused with its problems), builds it (`npm install` when needed, `npm run build`),
 * and runs its replicas (`node dist/main.node.js`, `ACTOR_PLATFORM=true`, the environment of
 * `deployment.env` with secrets from the secrets file, platform-managed settings from the
 * platform's environment) on one PostgreSQL schema per actor (or SQLite for one replica).
 * Each actor gets a service address that round-robins over its ready replicas; the gateway
 * (`createPlatformGateway`) answers on `port`, with the owner token and the edge keys kept in the
 * state folder (mode 0600) across runs, a rotated key too. Each run makes a new secret
 * (`PLATFORM_SECRET`, kept 0600 in the state folder, never printed): a replica answers only
 * requests carrying it, which the gateway and the service addresses add, and a service address
 * routes only those and mesh reads with the group's key. Replicas and service addresses listen
 * on free ports, or those of `replicaPorts`. Dead replicas are restarted with back-off and
 * reported. Runs until SIGINT or SIGTERM (or `signal`), then stops routing, drains every
 * replica and returns. Never throws: a refusal or failure is a result object.
 * @param dirs the actor folders, relative to `io.cwd`
 * @param options port, replicas, database, secrets, state folder, mesh groups, JSON output
 * @example
 * const result = await runPlatform(['./weather', './news'], { replicas: 2, databaseUrl: 'postgres://localhost/actors' });
 */
export async function runPlatform(
  dirs: readonly string[],
  options: RunPlatformOptions = {},
): Promise<RunPlatformResult | RegistrationFailure | CliFailure> {
  const io = resolveCliIo(options.io);
  const hosted: HostedActor[] = [];
  const pools = new Map<string, SupervisedPool>();
  const listeners: FetchListener[] = [];
  const meshKeys = new Map<string, string>();
  const timeouts = { headersTimeoutMs: options.headersTimeoutMs, requestTimeoutMs: options.requestTimeoutMs };
  const stop = stopRequest(options.signal);
  const say = (text: string) => (options.json ? io.stderr : io.stdout).write(`${text}\n`);
  try {
    const images = options.images ?? [];
    if (dirs.length === 0 && images.length === 0)
      throw new CliError(
        'refused',
        'bad_usage',
        'name at least one actor folder or --image <ref> (see `actorkit platform --help`)',
      );
    if (options.replicas !== undefined && !(Number.isInteger(options.replicas) && options.replicas >= 1)) {
      throw new CliError(
        'refused',
        'bad_usage',
        `--replicas must be a whole number of at least 1, got '${options.replicas}'`,
      );
    }
    const ports = options.replicaPorts === undefined ? ANY_FREE_PORT : new PortRange(options.replicaPorts);
    const gatewayPort = options.port ?? DEFAULT_PLATFORM_PORT;
    if (ports instanceof PortRange && ports.holds(gatewayPort))
      throw new CliError(
        'refused',
        'bad_usage',
        `--port ${gatewayPort} is inside --replica-ports ${ports.first}-${ports.last}: the gateway needs a port of its own`,
      );
    const stateDir = resolve(io.cwd, options.stateDir ?? DEFAULT_STATE_DIR);
    const secrets = await readSecretsFile(
      options.secretsFile === undefined ? join(stateDir, DEFAULT_SECRETS_FILE) : resolve(io.cwd, options.secretsFile),
      options.secretsFile !== undefined,
    );
    const databaseUrl = options.databaseUrl ?? io.env.DATABASE_URL;

    const registered: (RegisteredActor & { readonly image?: HostedImage })[] = [];
    for (const dir of dirs) {
      await installWhenMissing(resolve(io.cwd, dir), (line) => io.stderr.write(`[${dir}] npm: ${line}\n`), io.env);
      const actor = await registerActor(dir, io);
      if (!('ref' in actor)) return actor;
      registered.push(actor);
    }
    for (const ref of images) {
      if (stop.stopped) throw interrupted();
      say(`actorkit platform: pulling ${ref}…`);
      const actor = await registerImage(ref, io.env);
      if (!('ref' in actor)) return actor;
      registered.push(actor);
    }
    refuseDuplicateRefs(registered);
    for (const ref of Object.keys(options.meshGroups ?? {})) {
      if (!registered.some((actor) => actor.ref === ref))
        throw new CliError(
          'refused',
          'bad_usage',
          `--mesh-group names '${ref}', which is not a hosted actor (${registered.map((actor) => actor.ref).join(', ')})`,
        );
    }

    if (ports instanceof PortRange) {
      const needed = registered.reduce(
        (sum, actor) => sum + 1 + (options.replicas ?? actor.config.deployment.replicas.min),
        0,
      );
      if (needed > ports.size)
        throw new CliError(
          'refused',
          'bad_usage',
          `--replica-ports ${ports.first}-${ports.last} holds ${ports.size} port${ports.size === 1 ? '' : 's'}, but the actors need ${needed} (one service address per actor and one port per replica)`,
        );
    }
    // A new secret each run: the replicas answer only requests carrying it (the gateway's, the service addresses').
    const platformSecret = randomBytes(32).toString('base64url');
    keepKey(join(stateDir, PLATFORM_SECRET_FILE), platformSecret);
    for (const actor of registered) {
      const replicas = options.replicas ?? actor.config.deployment.replicas.min;
      const database = actorDatabase(databaseUrl, actor.ref, replicas);
      const meshGroup = actor.config.features.fleet_mesh
        ? (options.meshGroups?.[actor.ref] ?? DEFAULT_MESH_GROUP)
        : undefined;
      // The service listens before the replicas exist (their environment names its port); it routes once the pool is there.
      const service = await listenFetch(
        (request) =>
          refusedAtService(request, platformSecret, meshKeys.get(actor.ref)) ??
          pools.get(actor.ref)?.forward(request) ??
          noReadyReplica(actor.ref, request, false),
        {
          port: ports === ANY_FREE_PORT ? 0 : await ports.take(),
          host: '127.0.0.1',
          option: '--replica-ports',
          ...timeouts,
        },
      );
      listeners.push(service);
      hosted.push({ ...actor, replicas, database, meshGroup, service });
    }
    const credentials = await platformCredentials(
      stateDir,
      hosted.filter(hasEdge).map((actor) => actor.ref),
    );
    const services = new Map(hosted.map((actor) => [actor.ref, { host: '127.0.0.1', port: actor.service.port }]));
    const environments = new Map<string, Record<string, string>>();
    for (const actor of hosted) {
      const meshKey =
        actor.meshGroup === undefined ? undefined : await meshGroupKey(stateDir, actor.meshGroup, secrets);
      if (meshKey !== undefined) meshKeys.set(actor.ref, meshKey);
      const database =
        actor.database.engine === 'postgres'
          ? { DATABASE_URL: actor.database.url }
          : { DATA_DIR: actor.image === undefined ? join(stateDir, 'data', actor.ref) : imageDataDir(actor.image) };
      environments.set(
        actor.ref,
        actorEnvironment({
          ref: actor.ref,
          config: actor.config,
          secrets,
          platformEnv: io.env,
          meshKey,
          platformSecret,
          database,
          services,
          inContainer: actor.image !== undefined,
        }),
      );
    }

    for (const actor of hosted) {
      if (stop.stopped) throw interrupted();
      const runnerOf = await replicaRunners(actor, environments.get(actor.ref) ?? {}, {
        stateDir,
        platformSecret,
        io,
        say,
      });
      await ensureActorSchema(actor.database);
      const config = actor.config.deployment;
      const slots = Array.from(
        { length: actor.replicas },
        (_, index) =>
          new ReplicaSlot({
            index,
            runner: runnerOf(index),
            probePath: config.readiness_path ?? config.health_path,
            report: (message) => say(`actorkit platform: ${actor.ref} ${message}`),
            platformSecret,
            ports,
          }),
      );
      const pool = new SupervisedPool({
        ref: actor.ref,
        dir: actor.dir,
        config: actor.config,
        meshGroup: actor.meshGroup,
        slots,
        platformSecret,
        bodyLimitBytes:
          Number(environments.get(actor.ref)?.BODY_LIMIT_BYTES) ||
          Number(ENVIRONMENT_VARIABLES.BODY_LIMIT_BYTES.default),
      });
      pool.serviceUrl = `http://127.0.0.1:${actor.service.port}`;
      pools.set(actor.ref, pool);
      await pool.start();
    }

    const gateway = createPlatformGateway({
      pools,
      ownerToken: credentials.ownerToken,
      edgeKeys: credentials.edgeKeys,
      onEdgeKeyRotated: (ref, key) => {
        try {
          keepKey(credentials.edgeKeyFile(ref), key);
        } catch (error) {
          say(
            `actorkit platform: ${ref}'s rotated edge key could not be kept in ${credentials.edgeKeyFile(ref)} (${(error as Error).message}); the next run starts with the previous key`,
          );
        }
      },
    });
    const front = await listenFetch((request) => gateway.fetch(request), {
      port: gatewayPort,
      host: '127.0.0.1',
      ...timeouts,
    });
    listeners.push(front);
    const url = `http://127.0.0.1:${front.port}`;
    await waitUntilReady([...pools.values()], stop);
    if (stop.stopped) throw interrupted();

    const actors: HostedActorSummary[] = hosted.map((actor) => {
      const edge = hasEdge(actor);
      return {
        ref: actor.ref,
        slug: actor.config.actor.slug,
        dir: actor.dir,
        ...(actor.image === undefined ? {} : { image: actor.image.ref }),
        replicas: pools.get(actor.ref)?.replicas() ?? [],
        database: actor.database.engine,
        serviceUrl: `http://127.0.0.1:${actor.service.port}`,
        edgeUrl: edge ? `${url}${edgeBasePath(actor.ref)}/` : undefined,
        edgeKey: edge ? gateway.edgeKey(actor.ref) : undefined,
        edgeKeyFile: edge ? credentials.edgeKeyFile(actor.ref) : undefined,
        edgeOperations: exposedOperations(actor),
        panelUrls: panelSlugs(actor).map((slug) => url + relayPanelPath(actor.ref, slug)),
        meshGroup: actor.meshGroup,
        registrationSteps: registrationSteps(url, imageOf(actor)),
      };
    });
    const ready: PlatformReady = {
      event: 'platform_ready',
      url,
      dashboardUrl: `${url}/?token=${credentials.ownerToken}`,
      ownerToken: credentials.ownerToken,
      ownerTokenFile: credentials.ownerTokenFile,
      stateDir,
      secretsFile: secrets.path,
      actors,
    };
    if (options.json) io.stdout.write(`${JSON.stringify(ready)}\n`);
    else say(platformReadyText(ready));
    options.onReady?.(ready, pools);

    await stop.requested;
    say('actorkit platform: draining: routing stopped, replicas get SIGTERM…');
    await Promise.all(listeners.splice(0).map((listener) => listener.close()));
    await Promise.all([...pools.values()].map((pool) => pool.drain(DRAIN_GRACE_MS)));
    await gateway.close();
    say('actorkit platform: stopped');
    return { status: 'ok', url, actors };
  } catch (error) {
    return toCliFailure(error);
  } finally {
    await Promise.all(listeners.map((listener) => listener.close()));
    await Promise.all([...pools.values()].map((pool) => pool.drain(DRAIN_GRACE_MS)));
    stop.release();
  }
}

/**
 * The refusal of a request at an actor's service address, or undefined to route it. The address
 * is for the platform and the actor's mesh siblings: it routes a request carrying the run's
 * secret in `X-Platform-Secret`, and a mesh read (`GET /api/…`) carrying the group's mesh key
 * (another key: 401 `invalid_mesh_key`, as the replica would answer); anything else, a process of
 * the machine or a page that found the port, gets 403 `not_from_platform`.
 * @param request the request at the service address
 * @param platformSecret the run's secret
 * @param meshKey the actor's mesh group key, when it mounts peer reads
 */
function refusedAtService(request: Request, platformSecret: string, meshKey: string | undefined): Response | undefined {
  if (constantTimeEqual(request.headers.get(PLATFORM_SECRET_HEADER) ?? '', platformSecret)) return undefined;
  const meshRead = request.method === 'GET' && new URL(request.url).pathname.startsWith('/api/');
  const givenMeshKey = request.headers.get(MESH_KEY_HEADER);
  const refuse = (error: ActorError) => problemResponse(error, requestIdFor(request, undefined));
  if (meshKey !== undefined && meshRead && givenMeshKey !== null) {
    if (constantTimeEqual(givenMeshKey, meshKey)) return undefined;
    return refuse(
      new ActorError('invalid_mesh_key', { detail: `The ${MESH_KEY_HEADER} header does not hold the group's key` }),
    );
  }
  return refuse(
    new ActorError('not_from_platform', {
      detail: `A service address answers the platform (${PLATFORM_SECRET_HEADER}) and mesh reads with the group's key (GET /api/…, ${MESH_KEY_HEADER}) only`,
    }),
  );
}
