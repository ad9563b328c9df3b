import type * as v from 'valibot';
import type { ActorContext } from '../../context/actor-context.js';

/** A named thing the owner can do from a panel: a valibot payload schema and a handler. */
export interface PanelAction<TSchema extends v.GenericSchema = v.GenericSchema> {
  /** Button label; the action's name when absent. */
  readonly title?: string;
  readonly description?: string;
  /** Validates the `payload` of `POST /panel/<slug>/action`; a missing payload is `{}`. */
  readonly payload: TSchema;
  /** Runs the action; its JSON-serialisable result is sent back as `result`. Throw `ActorError` to refuse. */
  run(payload: v.InferOutput<TSchema>, ctx: ActorContext, request: Request): unknown;
}

/** What a custom page renderer receives: the panel's public description and the CSP nonce for its inline scripts and styles. */
export interface PanelPageView {
  readonly slug: string;
  readonly title: string;
  readonly description?: string;
  /** Put `nonce="${view.nonce}"` on every inline `<script>` and `<style>`: the page's CSP allows nothing else. */
  readonly nonce: string;
  readonly actions: readonly PanelActionView[];
}

/** An action as the page sees it: its name, label and the JSON Schema of its payload. */
export interface PanelActionView {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly payloadSchema: Record<string, unknown>;
}

/**
 * An owner-facing panel (`include_panel`): `GET /panel/<slug>` serves `page`,
 * `GET /panel/<slug>/data` the result of `data`, `POST /panel/<slug>/action` runs one of `actions`.
 * Its `slug`, `title` and `description` double as the panel declaration of the configuration.
 */
export interface Panel {
  /** kebab-case, unique among the actor's panels. */
  readonly slug: string;
  readonly title: string;
  readonly description?: string;
  /** Loads what the page shows; must be JSON-serialisable. */
  data(ctx: ActorContext, request: Request): unknown;
  /** Actions by snake_case name. */
  readonly actions?: Readonly<Record<string, PanelAction>>;
  /** The page: fixed HTML, or a renderer; default a generic page that shows the data and a form per action. */
  readonly page?: string | ((view: PanelPageView) => string | Promise<string>);
}

/**
 * Declares a panel action, keeping the payload type of its schema for the handler.
 * @param action payload schema, handler and labels
 * @example
 * const rename = panelAction({ payload: v.object({ name: v.string() }), run: ({ name }) => ({ renamed: name }) });
 */
export function panelAction<TSchema extends v.GenericSchema>(action: PanelAction<TSchema>): PanelAction<TSchema> {
  return action;
}
