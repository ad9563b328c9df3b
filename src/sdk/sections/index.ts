export { TEMPLATE_SECTIONS } from '../../config/sections/template-sections.js';
export { mergeSections } from '../../config/sections/merge-sections.js';
export { defineActorSections } from './define-actor-sections.js';
