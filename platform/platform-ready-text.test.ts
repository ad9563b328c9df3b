import { describe, expect, it } from 'vitest';
import { platformReadyText } from './platform-ready-text.js';
import type { HostedActorSummary, PlatformReady } from './platform-ready.js';

const KEY = 'akedge_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const actor = (ref: string, extra: Partial<HostedActorSummary>): HostedActorSummary => ({
  ref,
  slug: ref,
  dir: `/work/${ref}`,
  replicas: [0, 1].map((index) => ({
    index,
    url: `http://127.0.0.1:${4000 + index}`,
    state: 'ready',
    pid: 100 + index,
    restarts: 0,
    startedAt: 'now',
    lastLines: [],
  })),
  database: 'postgres',
  serviceUrl: 'http://127.0.0.1:5000',
  edgeUrl: undefined,
  edgeKey: undefined,
  edgeKeyFile: undefined,
  edgeOperations: [],
  panelUrls: [],
  meshGroup: undefined,
  registrationSteps: ['Open http://127.0.0.1:8790/home/creator/register-actor'],
  ...extra,
});
const ready: PlatformReady = {
  event: 'platform_ready',
  url: 'http://127.0.0.1:8790',
  dashboardUrl: 'http://127.0.0.1:8790/?token=owner-token-0123456789',
  ownerToken: 'owner-token-0123456789',
  ownerTokenFile: '/work/.actorkit/platform/owner-token',
  stateDir: '/work/.actorkit/platform',
  secretsFile: '/work/.actorkit/platform/secrets.env',
  actors: [
    actor('news', {
      edgeUrl: 'http://127.0.0.1:8790/api/v1/k/news/',
      edgeKey: KEY,
      edgeOperations: ['chat', 'status', 'health'],
      panelUrls: ['http://127.0.0.1:8790/relay/news/panel/stats'],
      meshGroup: 'default',
    }),
    actor('quiet', {}),
  ],
};

describe('platformReadyText', () => {
  it("prints each edge URL with its key masked, the panels, and the dashboard's login link", () => {
    const text = platformReadyText(ready);
    expect(text).toContain(
      '  news  2/2 replicas ready on PostgreSQL, edge http://127.0.0.1:8790/api/v1/k/news/ (chat, status, health) with key akedge_…ABCD, service http://127.0.0.1:5000, mesh group default',
    );
    expect(text).toContain('    panel (owner) http://127.0.0.1:8790/relay/news/panel/stats');
    expect(text).toContain(
      '  quiet  2/2 replicas ready on PostgreSQL, no external edge, service http://127.0.0.1:5000',
    );
    expect(text).toContain(
      "Dashboard (the owner's login link; it reveals, copies and rotates the edge keys): http://127.0.0.1:8790/?token=owner-token-0123456789",
    );
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(KEY.slice(7, 20));
  });
});
