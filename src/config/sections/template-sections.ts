import type { SettingsSection } from '../../core/actor-definition.js';

/**
 * The sections every actor generated from the template has, in display order; an actor's own
 * sections come after them (`mergeSections`).
 */
export const TEMPLATE_SECTIONS: readonly SettingsSection[] = Object.freeze([
  Object.freeze({
    id: 'general',
    title: 'General',
    description: 'Name, behaviour and prompts of the actor.',
    order: 10,
  }),
  Object.freeze({ id: 'model', title: 'Model', description: 'The language model the actor talks to.', order: 20 }),
  Object.freeze({
    id: 'credentials',
    title: 'Credentials',
    description: 'Keys and tokens; never shown again once saved.',
    order: 30,
  }),
  Object.freeze({
    id: 'advanced',
    title: 'Advanced',
    description: 'Limits and tuning; the defaults suit most actors.',
    order: 90,
  }),
]);
