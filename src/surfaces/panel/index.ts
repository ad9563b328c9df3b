// Owner panels (`include_panel`).

export { panelRouter, type PanelRouterOptions } from './panel-router.js';
export {
  panelAction,
  type Panel,
  type PanelAction,
  type PanelActionView,
  type PanelPageView,
} from './panel-definition.js';
export { approvalsPanel } from './approvals-panel.js';
export { statsPanel } from './stats-panel.js';
