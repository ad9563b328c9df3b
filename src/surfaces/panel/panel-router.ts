import { Hono } from 'hono';
import * as v from 'valibot';
import type { ActorContext, ActorEnv } from '../../context/actor-context.js';
import { ActorError } from '../../core/actor-error.js';
import type { ActorRouter } from '../../context/actor-router.js';
import { htmlPageHeaders, randomNonce } from '../../core/html-page.js';
import { objectOnly, readJsonBody } from '../../core/read-json-body.js';
import { fieldProblems, invalidFieldCount, validationFailed } from '../../core/validation-problem.js';
import type { DocumentedOperation } from '../../context/documented-operation.js';
import { limitRequestBody } from '../../middleware/body-limit/index.js';
import { problem, schemaOf } from '../../route-kit/openapi-parts.js';
import { PanelActionRequest } from './panel-action-request.js';
import type { Panel, PanelActionView, PanelPageView } from './panel-definition.js';
import { renderPanelPage } from './panel-page.js';

/** Options of `panelRouter`. */
export interface PanelRouterOptions {
  /** The actor's panels; at least one, slugs unique. */
  readonly panels: readonly Panel[];
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ACTION_NAME = /^[a-z][a-z0-9_]*$/;

interface PreparedPanel {
  readonly panel: Panel;
  readonly actions: readonly PanelActionView[];
}

function preparePanels(panels: readonly Panel[]): Map<string, PreparedPanel> {
  if (panels.length === 0) throw new Error('panelRouter needs at least one panel');
  const prepared = new Map<string, PreparedPanel>();
  for (const panel of panels) {
    if (!SLUG.test(panel.slug))
      throw new Error(`Panel slug ${JSON.stringify(panel.slug)} must be kebab-case (a-z, 0-9 and single dashes)`);
    if (prepared.has(panel.slug)) throw new Error(`Panel slug ${JSON.stringify(panel.slug)} is declared twice`);
    if (typeof panel.data !== 'function') throw new Error(`Panel ${panel.slug} needs a data(ctx, request) loader`);
    const actions = Object.entries(panel.actions ?? {}).map(([name, action]): PanelActionView => {
      if (!ACTION_NAME.test(name))
        throw new Error(`Action ${JSON.stringify(name)} of panel ${panel.slug} must be snake_case`);
      if (typeof action.run !== 'function' || action.payload === undefined)
        throw new Error(`Action ${name} of panel ${panel.slug} needs a payload schema and a run handler`);
      return {
        name,
        title: action.title ?? name,
        ...(action.description === undefined ? {} : { description: action.description }),
        payloadSchema: schemaOf(action.payload),
      };
    });
    prepared.set(panel.slug, { panel, actions });
  }
  return prepared;
}

/**
 * The body of `POST /panel/{slug}/action` the panels take: one of their actions by name, with its
 * own payload. The document has one operation for every slug, so a body names any panel's action;
 * posted to another panel, it gets 422 `unknown_action`. Without any action: the generic request.
 */
function actionRequestSchema(panels: ReadonlyMap<string, PreparedPanel>): Record<string, unknown> {
  const actions = [...panels.values()].flatMap(({ panel }) => Object.entries(panel.actions ?? {}));
  if (actions.length === 0) return schemaOf(PanelActionRequest);
  return {
    oneOf: actions.map(([name, action]) => ({
      type: 'object',
      // A left-out payload is `{}`: required only when the action refuses `{}`.
      required: v.is(action.payload, {}) ? ['action'] : ['action', 'payload'],
      properties: { action: { const: name }, payload: schemaOf(action.payload) },
      additionalProperties: false,
    })),
  };
}

function panelOperations(panels: ReadonlyMap<string, PreparedPanel>): DocumentedOperation[] {
  const slug = { name: 'slug', in: 'path', required: true, schema: { enum: [...panels.keys()] } };
  const unknownPanel = problem('Unknown panel', ['unknown_panel']);
  return [
    {
      method: 'get',
      path: '/panel/{slug}',
      operation: {
        operationId: 'panelPage',
        summary: 'Owner panel page (HTML)',
        parameters: [slug],
        responses: {
          200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
          404: unknownPanel,
        },
      },
    },
    {
      method: 'get',
      path: '/panel/{slug}/data',
      operation: {
        operationId: 'panelData',
        summary: 'The data the panel shows',
        parameters: [slug],
        responses: {
          200: { description: 'Panel data', content: { 'application/json': { schema: {} } } },
          404: unknownPanel,
          503: problem('Database unreachable', ['store_unavailable']),
        },
      },
    },
    {
      method: 'post',
      path: '/panel/{slug}/action',
      operation: {
        operationId: 'panelAction',
        summary: 'Run a panel action',
        parameters: [slug],
        requestBody: { required: true, content: { 'application/json': { schema: actionRequestSchema(panels) } } },
        responses: {
          200: {
            description: '`{action, result}`',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['action', 'result'],
                  properties: { action: { type: 'string' }, result: {} },
                },
              },
            },
          },
          400: problem('Malformed JSON', ['invalid_json']),
          404: unknownPanel,
          413: problem('Body over BODY_LIMIT_BYTES', ['payload_too_large']),
          415: problem('Not JSON', ['unsupported_media_type']),
          422: problem('Unknown action or invalid payload', ['unknown_action', 'validation_failed']),
        },
      },
    },
  ];
}

/**
 * Owner panels (`include_panel`): `GET /panel/<slug>` (HTML), `GET /panel/<slug>/data` (JSON)
 * and `POST /panel/<slug>/action` with `{action, payload}`. An unknown slug is 404, an unknown
 * action or an invalid payload 422 with JSON pointers under `/payload`. The routes sit behind
 * the API key when it is enabled; on the platform the panel relay is the boundary.
 * @param options the panels
 * @example
 * createActorApp({ definition, routers: [panelRouter({ panels: [statsPanel()] })] });
 */
export function panelRouter(options: PanelRouterOptions): ActorRouter {
  const panels = preparePanels(options.panels);
  const find = (slug: string): PreparedPanel => {
    const found = panels.get(slug);
    if (found === undefined)
      throw new ActorError('unknown_panel', { detail: `No panel is named ${JSON.stringify(slug)}` });
    return found;
  };
  return {
    name: 'panel',
    operations: () => panelOperations(panels),
    mount(app, ctx) {
      if (!ctx.definition.features.includePanel) {
        throw new Error(
          'panelRouter is mounted but features.includePanel is false: turn include_panel on or do not mount the panels',
        );
      }
      const limitBody = limitRequestBody({ maxSize: ctx.config.bodyLimitBytes });
      const routes = new Hono<ActorEnv>()
        .get('/panel/:slug', async function panelPage(c) {
          const { panel, actions } = find(c.req.param('slug'));
          const nonce = randomNonce();
          const view: PanelPageView = {
            slug: panel.slug,
            title: panel.title,
            ...(panel.description === undefined ? {} : { description: panel.description }),
            nonce,
            actions,
          };
          const page = typeof panel.page === 'string' ? panel.page : await (panel.page ?? renderPanelPage)(view);
          return c.body(page, 200, htmlPageHeaders(nonce, 'self'));
        })
        .get('/panel/:slug/data', async function panelData(c) {
          const { panel } = find(c.req.param('slug'));
          c.header('Cache-Control', 'no-store');
          return c.json((await panel.data(ctx, c.req.raw)) ?? null);
        })
        .post('/panel/:slug/action', limitBody, async function panelAction(c) {
          const { panel } = find(c.req.param('slug'));
          const body = await readJsonBody(c.req.raw, PanelActionRequest);
          return c.json(await runAction(ctx, panel, body, c.req.raw));
        });
      app.route('/', routes);
    },
  };
}

/** The valibot schema types of a JSON object. */
const OBJECT_SCHEMA_TYPES: ReadonlySet<string> = new Set([
  'object',
  'loose_object',
  'strict_object',
  'object_with_rest',
  'record',
]);

async function runAction(
  ctx: ActorContext,
  panel: Panel,
  body: PanelActionRequest,
  request: Request,
): Promise<{ action: string; result: unknown }> {
  const actions = panel.actions ?? {};
  const action = Object.hasOwn(actions, body.action) ? actions[body.action] : undefined;
  if (action === undefined) {
    const known = Object.keys(actions);
    throw new ActorError('unknown_action', {
      detail: `Panel ${panel.slug} has no action ${JSON.stringify(body.action)}`,
      errors: [
        {
          pointer: '/action',
          detail: known.length === 0 ? 'this panel has no actions' : `must be one of: ${known.join(', ')}`,
        },
      ],
    });
  }
  // An object payload is never an array (valibot's object schemas would take `[]` for `{}`).
  const payload = OBJECT_SCHEMA_TYPES.has(action.payload.type) ? objectOnly(action.payload) : action.payload;
  const parsed = v.safeParse(payload, body.payload);
  if (!parsed.success) {
    const errors = fieldProblems(parsed.issues).map((problem) => ({
      pointer: `/payload${problem.pointer}`,
      detail: problem.detail,
    }));
    throw validationFailed(errors, invalidFieldCount(`The payload of ${body.action}`, errors.length));
  }
  try {
    const result = await action.run(parsed.output, ctx, request);
    ctx.logger.info('panel_action_run', { panel: panel.slug, action: body.action, outcome: 'success' });
    return { action: body.action, result: result ?? null };
  } catch (error) {
    ctx.logger.warn('panel_action_run', {
      panel: panel.slug,
      action: body.action,
      outcome: 'error',
      code: error instanceof ActorError ? error.code : 'internal_error',
    });
    throw error;
  }
}
