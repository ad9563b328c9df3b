export { TEMPLATE_SECTIONS } from './template-sections.js';
export { mergeSections } from './merge-sections.js';
export { defineActorSections } from './define-actor-sections.js';
