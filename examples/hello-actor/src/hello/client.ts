import { DomainClient, type DomainHealth } from 'actorkit/sdk';
import type { Settings } from '../actor.js';

/** A fact the hello domain knows. */
export interface HelloFact {
  readonly topic: string;
  readonly text: string;
}

/**
 * The hello domain client: the one place that talks to the domain's services.
 * Replace `lookup` with calls to your real service; keep non-critical calls inside `safeCall`
 * so an outage degrades the answer instead of crashing the actor.
 */
export class HelloClient extends DomainClient<Settings> {
  /** System binaries this client needs; each becomes a `/ready` check. */
  static override readonly requiredBinaries: readonly string[] = [];

  /** Looks up what the domain knows about a topic; never throws. */
  lookup(topic: string): Promise<HelloFact> {
    return this.safeCall(async () => this.#ask(topic), {
      fallback: { topic, text: `The hello service is unavailable right now.` },
      action: 'lookup',
    });
  }

  /** Whether the service answers, for `/health` (src/app.ts hands it over): asks it once, outside `safeCall`, so a failure shows. */
  override async healthCheck(): Promise<DomainHealth> {
    const answer = await this.#ask('health');
    return { status: 'pass', output: `the service answered (${answer.text.length} characters)` };
  }

  /** The service itself: replace this with a call to your real one (a fetch with `this.settings`). */
  async #ask(topic: string): Promise<HelloFact> {
    return { topic, text: `${this.settings.hello_greeting}! Here is what Hello Actor knows about ${topic}: nothing yet — connect a real service in src/hello/client.ts.` };
  }
}
