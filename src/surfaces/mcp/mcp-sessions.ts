/** What a session table needs of one open MCP session. */
export interface ClosableSession {
  close(): Promise<void>;
}

/** Limits of an `McpSessions` table. */
export interface McpSessionLimits {
  /** Most sessions open at once (`MCP_MAX_SESSIONS`). */
  readonly maxSessions: number;
  /** How long a session may sit unused before it is closed (`MCP_SESSION_IDLE_MS`). */
  readonly idleMs: number;
  /** The clock, in milliseconds; a test passes its own. */
  readonly now?: () => number;
}

/**
 * The open `/mcp` sessions by `Mcp-Session-Id`, capped in number and idle time. Idle sessions
 * are closed lazily, whenever the table is used, so the table needs no timer of its own.
 */
export class McpSessions<TSession extends ClosableSession> {
  readonly #sessions = new Map<string, { session: TSession; lastUsed: number }>();
  readonly #limits: McpSessionLimits;
  readonly #now: () => number;

  constructor(limits: McpSessionLimits) {
    this.#limits = limits;
    this.#now = limits.now ?? Date.now;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The session of `id`, marked used now; undefined when unknown, closed or expired. */
  use(id: string): TSession | undefined {
    this.closeIdle();
    const entry = this.#sessions.get(id);
    if (entry === undefined) return undefined;
    entry.lastUsed = this.#now();
    return entry.session;
  }

  /**
   * Whether one more session fits, after the idle ones are closed.
   * @param pending sessions being opened that the table does not hold yet
   */
  hasRoom(pending = 0): boolean {
    this.closeIdle();
    return this.#sessions.size + pending < this.#limits.maxSessions;
  }

  /** Records a new session. */
  add(id: string, session: TSession): void {
    this.#sessions.set(id, { session, lastUsed: this.#now() });
  }

  /** Forgets a session that closed itself (a client's `DELETE`). */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes the sessions unused for longer than the idle limit. */
  closeIdle(): void {
    const oldest = this.#now() - this.#limits.idleMs;
    for (const [id, entry] of this.#sessions) {
      if (entry.lastUsed > oldest) continue;
      this.#sessions.delete(id);
      void entry.session.close().catch(() => {});
    }
  }

  /** Closes every session (on shutdown) and says how many there were. */
  async closeAll(): Promise<number> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((entry) => entry.session.close()));
    return sessions.length;
  }
}
