import { maskEdgeKey } from './gateway/edge-keys.js';
import type { PlatformReady } from './platform-ready.js';

/**
 * What `actorkit platform` prints once every actor is up (without `--json`): each actor's
 * replicas, database, edge URL with its operations and its key masked (the dashboard reveals
 * it), service address, mesh group and panels through the relay; the dashboard's login link;
 * then the creator-hub steps `publish` prints.
 * @param ready what `--json` prints
 */
export function platformReadyText(ready: PlatformReady): string {
  const lines = [
    `actorkit platform: ${ready.actors.length} actor${ready.actors.length === 1 ? '' : 's'} on ${ready.url} (state in ${ready.stateDir})`,
  ];
  for (const actor of ready.actors) {
    const readyCount = actor.replicas.filter((replica) => replica.state === 'ready').length;
    const parts = [
      `${readyCount}/${actor.replicas.length} replicas ready on ${actor.database === 'postgres' ? 'PostgreSQL' : 'SQLite'}`,
      ...(actor.edgeUrl === undefined
        ? ['no external edge']
        : [`edge ${actor.edgeUrl} (${actor.edgeOperations.join(', ')}) with key ${maskEdgeKey(actor.edgeKey ?? '')}`]),
      `service ${actor.serviceUrl}`,
      ...(actor.meshGroup === undefined ? [] : [`mesh group ${actor.meshGroup}`]),
    ];
    lines.push(`  ${actor.ref}  ${parts.join(', ')}`);
    for (const panel of actor.panelUrls) lines.push(`    panel (owner) ${panel}`);
  }
  lines.push(`Dashboard (the owner's login link; it reveals, copies and rotates the edge keys): ${ready.dashboardUrl}`);
  lines.push(
    `The owner token and the edge keys are kept in ${ready.stateDir} (mode 0600) and stay the same on the next run.`,
  );
  lines.push('Registered here already; on the platform you would register each in the creator hub:');
  for (const actor of ready.actors) {
    lines.push(`  ${actor.ref}:`);
    actor.registrationSteps.forEach((step, index) => lines.push(`    ${index + 1}. ${step}`));
  }
  lines.push('Ctrl-C (or SIGTERM) drains the replicas and stops.');
  return lines.join('\n');
}
