import { afterEach, describe, expect, it } from 'vitest';
import { newRunId } from '../core/time-ordered-id.js';
import type { TurnToSave, Store, StoredMessage, StoredOAuthToken, StoredRun } from '../store/store.js';
import { invocation } from './test-invocation.js';

/** A store under test, fresh and migrated, with the engine-specific faults its harness can inject. */
export interface TestStore {
  readonly store: Store;
  /**
   * Makes every insert of the user `boom` into the stats tables fail inside the database,
   * mid-transaction; resolves to a function that removes the fault. Absent when the
   * database cannot be reached from outside the store (in-memory engines).
   */
  readonly breakInsertsOfUserBoom?: () => Promise<() => Promise<void>>;
}

/** How the contract opens stores of one engine, when it can do more than open one. */
export interface StoreHarness {
  readonly name: string;
  /** Whether the harness can break the database from outside (`TestStore.breakInsertsOfUserBoom`). */
  readonly reachableFromOutside: boolean;
  /** A store on a fresh, migrated, empty database. */
  fresh(): Promise<TestStore>;
}

/** What `describeStoreContract` takes: a function opening a fresh, migrated, empty store, or a harness. */
export type StoreContractSubject = (() => Promise<Store>) | StoreHarness;

function harnessOf(subject: StoreContractSubject): StoreHarness {
  if (typeof subject !== 'function') return subject;
  return {
    name: subject.name || 'store',
    reachableFromOutside: false,
    fresh: async () => ({ store: await subject() }),
  };
}

function message(id: string, overrides: Partial<StoredMessage> = {}): StoredMessage {
  return { id, role: 'user', content: `content of ${id}`, createdAt: '2025-01-01T00:00:00.000Z', ...overrides };
}

const token: StoredOAuthToken = {
  tenantId: 'acme',
  provider: 'github',
  accessToken: 'access-1',
  refreshToken: 'refresh-1',
  tokenType: 'Bearer',
  scope: 'repo read:user',
  expiresAt: '2030-01-01T00:00:00.000Z',
};

/** A run in progress held by `runner-a` for a minute, as a runner first writes it. */
function storedRun(overrides: Partial<StoredRun> = {}): StoredRun {
  const nowMs = Date.now();
  return {
    id: newRunId(nowMs),
    tenantId: 'acme',
    sessionId: 's-1',
    state: 'running',
    background: false,
    createdAtMs: nowMs,
    finishedAtMs: null,
    inputTokens: 0,
    outputTokens: 0,
    reply: null,
    problem: null,
    runner: 'runner-a',
    leaseExpiresAtMs: nowMs + 60_000,
    cancelRequested: false,
    lastSeq: 0,
    request: '{"user_identifier":"u","session_id":"s-1","message":"hi"}',
    sideEffects: false,
    approvals: null,
    ...overrides,
  };
}

/** `count` stream parts numbered from `firstSeq`, as JSON text. */
function partsFrom(firstSeq: number, count: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({ type: 'text-delta', id: 't', delta: `part ${firstSeq + index}` }),
  );
}

/** Stored parts as `[seq, part]` with each part parsed, so an engine may re-encode the JSON text. */
function seqAndPart(parts: readonly { seq: number; part: string }[]): [number, unknown][] {
  return parts.map(({ seq, part }) => [seq, JSON.parse(part)]);
}

/**
 * Registers (with vitest) the behaviour every `Store` must show: saving turns (`saveTurns`:
 * counted exactly once per turn id, atomic per call with the turn's messages and idempotency
 * completion, distinct sessions and users), history, settings, OAuth tokens,
 * OAuth states, idempotency keys, runs (leases, cancels, part batches) and migrations, with bad input as well as good. The store's
 * own engines run it; a new backend proves itself with one call. Every store it opens is closed
 * after its test.
 * @param subject a function that opens a store on a fresh, migrated, empty database, or a
 *   `StoreHarness` that can also break the database from outside
 * @example
 * import { describeStoreContract } from 'actorkit/testing';
 * describeStoreContract(async function myStore() {
 *   const store = await openMyStore(freshDatabaseUrl());
 *   await store.migrate();
 *   return store;
 * });
 */
export function describeStoreContract(subject: StoreContractSubject): void {
  const harness = harnessOf(subject);
  describe(`Store contract: ${harness.name}`, () => {
    const opened: Store[] = [];
    const fresh = async () => {
      const testStore = await harness.fresh();
      opened.push(testStore.store);
      return testStore;
    };
    const freshStore = async () => (await fresh()).store;

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    describe('stats', () => {
      it('starts at zero, in total and for a tenant never seen', async () => {
        const store = await freshStore();
        for (const snapshot of [await store.readStats(), await store.readStats('ghost')]) {
          expect(snapshot).toMatchObject({
            invocations: 0,
            errors: 0,
            sessions: 0,
            users: 0,
            tenants: 0,
            inputTokens: 0,
            outputTokens: 0,
            toolCalls: 0,
            latencyMsTotal: 0,
            latencyMsMax: 0,
            lastInvokedAt: null,
          });
          expect(Number.isNaN(Date.parse(snapshot.since))).toBe(false);
        }
      });

      it('adds up every counter per tenant and in total', async () => {
        const store = await freshStore();
        const first = invocation({ latencyMs: 120, inputTokens: 5, outputTokens: 7, toolCalls: 2 });
        const second = invocation({ outcome: 'error', latencyMs: 30.5, inputTokens: 0, outputTokens: 0, toolCalls: 0 });
        const third = invocation({ tenantId: 'globex', latencyMs: 400, inputTokens: 1, outputTokens: 1, toolCalls: 0 });
        await store.saveTurns([first, second]);
        await store.saveTurns([third]);

        expect(await store.readStats('acme')).toEqual({
          since: first.finishedAt,
          invocations: 2,
          errors: 1,
          sessions: 1,
          users: 1,
          tenants: 1,
          inputTokens: 5,
          outputTokens: 7,
          toolCalls: 2,
          latencyMsTotal: 150.5,
          latencyMsMax: 120,
          lastInvokedAt: second.finishedAt,
        });
        expect(await store.readStats()).toEqual({
          since: first.finishedAt,
          invocations: 3,
          errors: 1,
          sessions: 2,
          users: 1,
          tenants: 2,
          inputTokens: 6,
          outputTokens: 8,
          toolCalls: 2,
          latencyMsTotal: 550.5,
          latencyMsMax: 400,
          lastInvokedAt: third.finishedAt,
        });
        expect((await store.readStats('ghost')).invocations).toBe(0);
      });

      it('counts sessions per tenant and users across tenants, each once', async () => {
        const store = await freshStore();
        await store.saveTurns([
          invocation({ userIdentifier: 'ann', sessionId: 's1' }),
          invocation({ userIdentifier: 'ann', sessionId: 's2' }),
          invocation({ userIdentifier: 'bob', sessionId: 's1' }),
        ]);
        await store.saveTurns([
          invocation({ userIdentifier: 'ann', sessionId: 's1' }),
          invocation({ tenantId: 'globex', userIdentifier: 'ann', sessionId: 's1' }),
        ]);
        expect(await store.readStats('acme')).toMatchObject({ invocations: 4, sessions: 2, users: 2, tenants: 1 });
        expect(await store.readStats('globex')).toMatchObject({ invocations: 1, sessions: 1, users: 1, tenants: 1 });
        expect(await store.readStats()).toMatchObject({ invocations: 5, sessions: 3, users: 2, tenants: 2 });
      });

      it('counts a turn id once, within a call and across calls; turns without id every time', async () => {
        const store = await freshStore();
        const record = invocation();
        await store.saveTurns([record, record]);
        await store.saveTurns([record]);
        const { id: _id, ...anonymous } = invocation();
        await store.saveTurns([anonymous, anonymous]);
        expect((await store.readStats()).invocations).toBe(3);
      });

      it('stays exact under many concurrent calls', async () => {
        const store = await freshStore();
        const calls = Array.from({ length: 25 }, (_, call) =>
          Array.from({ length: 8 }, (_, index) =>
            invocation({
              tenantId: `tenant-${index % 3}`,
              sessionId: `s-${call % 5}`,
              userIdentifier: `u-${index % 4}`,
              outcome: index === 0 ? 'error' : 'success',
            }),
          ),
        );
        await Promise.all(calls.map((records) => store.saveTurns(records)));
        expect(await store.readStats()).toMatchObject({
          invocations: 200,
          errors: 25,
          inputTokens: 2000,
          tenants: 3,
          sessions: 15,
          users: 4,
        });
        expect(await store.readStats('tenant-0')).toMatchObject({ invocations: 75, sessions: 5, users: 3 });
      });

      it.each<[string, Partial<TurnToSave>]>([
        ['an empty tenant id', { tenantId: '' }],
        ['a user identifier that is not a string', { userIdentifier: 42 as unknown as string }],
        ['an unknown outcome', { outcome: 'maybe' as TurnToSave['outcome'] }],
        ['negative tokens', { inputTokens: -1 }],
        ['fractional tool calls', { toolCalls: 1.5 }],
        ['a NaN latency', { latencyMs: Number.NaN }],
        ['an infinite latency', { latencyMs: Number.POSITIVE_INFINITY }],
        ['a finishedAt that is no timestamp', { finishedAt: 'yesterday' }],
        ['an id longer than 512 characters', { id: 'x'.repeat(513) }],
      ])('rejects a call holding a turn with %s and counts none of it', async (_label, bad) => {
        const store = await freshStore();
        await expect(store.saveTurns([invocation(), invocation(bad)])).rejects.toThrow(TypeError);
        expect((await store.readStats()).invocations).toBe(0);
      });

      it('treats an empty call as a no-op', async () => {
        const store = await freshStore();
        await store.saveTurns([]);
        expect((await store.readStats()).invocations).toBe(0);
      });

      if (harness.reachableFromOutside)
        it('rolls back a call that fails inside the database, and counts it once when retried', async () => {
          const { store, breakInsertsOfUserBoom } = await fresh();
          if (breakInsertsOfUserBoom === undefined)
            throw new Error(`the ${harness.name} harness must provide breakInsertsOfUserBoom`);
          await store.saveTurns([invocation()]);
          const repair = await breakInsertsOfUserBoom();
          const call = [
            invocation({ userIdentifier: 'ann' }),
            invocation({ userIdentifier: 'boom', tenantId: 'globex', sessionId: 'new' }),
          ];
          await expect(store.saveTurns(call)).rejects.toThrow();
          expect(await store.readStats()).toMatchObject({ invocations: 1, users: 1, sessions: 1, tenants: 1 });
          await repair();
          await store.saveTurns(call);
          await store.saveTurns(call);
          expect(await store.readStats()).toMatchObject({ invocations: 3, users: 3, sessions: 2, tenants: 2 });
        });

      if (harness.reachableFromOutside)
        it("saves a turn's count, messages and idempotency completion in one transaction: none of them when it fails, each once when retried", async () => {
          const { store, breakInsertsOfUserBoom } = await fresh();
          if (breakInsertsOfUserBoom === undefined)
            throw new Error(`the ${harness.name} harness must provide breakInsertsOfUserBoom`);
          expect(await store.claimIdempotencyKey('key-boom', 'fp-1', 60_000)).toBeNull();
          const repair = await breakInsertsOfUserBoom();
          const turn = invocation({
            userIdentifier: 'boom',
            sessionId: 'chat',
            history: [message('boom-user'), message('boom-answer', { role: 'assistant' })],
            idempotency: { key: 'key-boom', status: 200, body: '{"turn":"boom"}', ttlMs: 60_000 },
          });
          await expect(store.saveTurns([turn])).rejects.toThrow();
          expect((await store.readStats()).invocations).toBe(0);
          expect(await store.loadHistory('acme', 'chat', 10)).toEqual([]);
          expect(await store.claimIdempotencyKey('key-boom', 'fp-1', 60_000)).toEqual({
            state: 'running',
            fingerprint: 'fp-1',
          });
          await repair();
          await store.saveTurns([turn]);
          await store.saveTurns([turn]);
          expect((await store.readStats()).invocations).toBe(1);
          expect((await store.loadHistory('acme', 'chat', 10)).map((m) => m.id)).toEqual(['boom-user', 'boom-answer']);
          expect(await store.claimIdempotencyKey('key-boom', 'fp-1', 60_000)).toMatchObject({
            state: 'completed',
            body: '{"turn":"boom"}',
          });
        });
    });

    describe('history', () => {
      it('loads the last messages of a session, oldest first', async () => {
        const store = await freshStore();
        await store.appendMessages('acme', 'chat', [
          message('m1'),
          message('m2', { role: 'assistant' }),
          message('m3'),
        ]);
        await store.appendMessages('acme', 'chat', [
          message('m4', { role: 'tool' }),
          message('m5', { role: 'system' }),
        ]);
        expect((await store.loadHistory('acme', 'chat', 10)).map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
        expect((await store.loadHistory('acme', 'chat', 2)).map((m) => m.id)).toEqual(['m4', 'm5']);
        expect(await store.loadHistory('acme', 'chat', 0)).toEqual([]);
      });

      it('keeps tenants and sessions apart', async () => {
        const store = await freshStore();
        await store.appendMessages('acme', 'chat', [message('acme-1')]);
        await store.appendMessages('globex', 'chat', [message('globex-1')]);
        await store.appendMessages('acme', 'other', [message('other-1')]);
        expect((await store.loadHistory('acme', 'chat', 10)).map((m) => m.id)).toEqual(['acme-1']);
        expect((await store.loadHistory('globex', 'chat', 10)).map((m) => m.id)).toEqual(['globex-1']);
        expect(await store.loadHistory('initech', 'chat', 10)).toEqual([]);
      });

      it('keeps order under concurrent appends to one session', async () => {
        const store = await freshStore();
        await Promise.all(
          Array.from({ length: 10 }, (_, call) =>
            store.appendMessages('acme', 'busy', [message(`c${call}-a`), message(`c${call}-b`)]),
          ),
        );
        const ids = (await store.loadHistory('acme', 'busy', 100)).map((m) => m.id);
        expect(ids).toHaveLength(20);
        for (let call = 0; call < 10; call += 1) expect(ids.indexOf(`c${call}-b`)).toBe(ids.indexOf(`c${call}-a`) + 1);
      });

      it('round-trips every field and the JSON data, and leaves data out when there was none', async () => {
        const store = await freshStore();
        const data = { tool_calls: [{ id: 'call-1', name: 'weather', arguments: { city: 'Zürich' } }], note: null };
        await store.appendMessages('acme', 'chat', [
          message('m1', { content: 'Grüezi 👋\n"quoted"', createdAt: '2025-02-03T04:05:06.789Z' }),
          message('m2', { role: 'assistant', content: '', data }),
        ]);
        const [first, second] = await store.loadHistory('acme', 'chat', 5);
        expect(first).toEqual({
          id: 'm1',
          role: 'user',
          content: 'Grüezi 👋\n"quoted"',
          createdAt: '2025-02-03T04:05:06.789Z',
        });
        expect(first).not.toHaveProperty('data');
        expect(second).toEqual({
          id: 'm2',
          role: 'assistant',
          content: '',
          data,
          createdAt: '2025-01-01T00:00:00.000Z',
        });
      });

      it.each<[string, StoredMessage]>([
        ['an unknown role', message('m', { role: 'robot' as StoredMessage['role'] })],
        ['an empty id', message('')],
        ['content that is not a string', message('m', { content: 7 as unknown as string })],
        ['a createdAt that is no timestamp', message('m', { createdAt: 'now' })],
      ])('rejects a batch holding a message with %s and stores none of it', async (_label, bad) => {
        const store = await freshStore();
        await expect(store.appendMessages('acme', 'chat', [message('good'), bad])).rejects.toThrow(TypeError);
        expect(await store.loadHistory('acme', 'chat', 10)).toEqual([]);
      });

      it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects the history limit %s', async (limit) => {
        const store = await freshStore();
        await expect(store.loadHistory('acme', 'chat', limit)).rejects.toThrow(RangeError);
      });

      it('appends the messages of a counted turn with its count, once, in turn order, after earlier messages', async () => {
        const store = await freshStore();
        await store.appendMessages('acme', 'chat', [message('earlier')]);
        const first = invocation({
          sessionId: 'chat',
          history: [message('t1-user'), message('t1-answer', { role: 'assistant', data: { tool_calls: [] } })],
        });
        const second = invocation({
          sessionId: 'chat',
          history: [message('t2-user'), message('t2-answer', { role: 'assistant' })],
        });
        const elsewhere = invocation({ tenantId: 'globex', sessionId: 'chat', history: [message('g-user')] });
        const bare = invocation({ sessionId: 'chat' });
        await store.saveTurns([first, second, elsewhere, bare]);
        // A retried save of the same turns counts nothing and appends nothing.
        await store.saveTurns([first, second]);
        const history = await store.loadHistory('acme', 'chat', 10);
        expect(history.map((m) => m.id)).toEqual(['earlier', 't1-user', 't1-answer', 't2-user', 't2-answer']);
        expect(history[2]).toMatchObject({ role: 'assistant', data: { tool_calls: [] } });
        expect((await store.loadHistory('globex', 'chat', 10)).map((m) => m.id)).toEqual(['g-user']);
        expect((await store.readStats('acme')).invocations).toBe(3);
        // The numbering goes on from the turns: a later append lands after them.
        await store.appendMessages('acme', 'chat', [message('later')]);
        expect((await store.loadHistory('acme', 'chat', 2)).map((m) => m.id)).toEqual(['t2-answer', 'later']);
      });

      it('keeps each turn whole under concurrent saves to one session', async () => {
        const store = await freshStore();
        await Promise.all(
          Array.from({ length: 10 }, (_, call) =>
            store.saveTurns([
              invocation({ sessionId: 'busy', history: [message(`r${call}-a`), message(`r${call}-b`)] }),
            ]),
          ),
        );
        const ids = (await store.loadHistory('acme', 'busy', 100)).map((m) => m.id);
        expect(ids).toHaveLength(20);
        for (let call = 0; call < 10; call += 1) expect(ids.indexOf(`r${call}-b`)).toBe(ids.indexOf(`r${call}-a`) + 1);
        expect((await store.readStats('acme')).invocations).toBe(10);
      });

      it('rejects a turn whose messages hold a bad one, and neither counts it nor stores any of it', async () => {
        const store = await freshStore();
        const bad = invocation({
          sessionId: 'chat',
          history: [message('fine'), message('m', { role: 'robot' as StoredMessage['role'] })],
        });
        await expect(
          store.saveTurns([invocation({ sessionId: 'chat', history: [message('other')] }), bad]),
        ).rejects.toThrow(TypeError);
        expect(await store.loadHistory('acme', 'chat', 10)).toEqual([]);
        expect((await store.readStats()).invocations).toBe(0);
      });

      it('rejects an empty tenant or session id when appending', async () => {
        const store = await freshStore();
        await expect(store.appendMessages('', 'chat', [message('m')])).rejects.toThrow(TypeError);
        await expect(store.appendMessages('acme', '', [message('m')])).rejects.toThrow(TypeError);
      });
    });

    describe('settings overrides', () => {
      it('starts empty, then saves what the update makes of the saved overrides, as one unit', async () => {
        const store = await freshStore();
        expect(await store.loadSettingsOverrides()).toEqual({});
        const written = await store.updateSettingsOverrides(() => ({
          greeting: 'Hi',
          limits: { max_items: 5, tags: ['a', 'b'] },
          enabled: true,
        }));
        expect(written).toEqual({ greeting: 'Hi', limits: { max_items: 5, tags: ['a', 'b'] }, enabled: true });
        const loaded = await store.loadSettingsOverrides();
        expect(loaded).toEqual(written);
        loaded.greeting = 'changed by the caller';
        expect((await store.loadSettingsOverrides()).greeting).toBe('Hi');
        await store.updateSettingsOverrides(() => ({ max_items: 7 }));
        expect(await store.loadSettingsOverrides()).toEqual({ max_items: 7 });
      });

      it('runs concurrent updates one after the other, each on what the one before saved: none is lost', async () => {
        const store = await freshStore();
        await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            store.updateSettingsOverrides((saved) => ({ ...saved, [`key_${index}`]: index })),
          ),
        );
        expect(Object.keys(await store.loadSettingsOverrides())).toHaveLength(20);
      });

      it('changes nothing when the update throws, and rejects with its error', async () => {
        const store = await freshStore();
        await store.updateSettingsOverrides(() => ({ greeting: 'Hi' }));
        const refusal = new RangeError('refused by the caller');
        await expect(
          store.updateSettingsOverrides(() => {
            throw refusal;
          }),
        ).rejects.toBe(refusal);
        expect(await store.loadSettingsOverrides()).toEqual({ greeting: 'Hi' });
      });

      it.each([null, [], 'text'])('rejects overrides %j and keeps the saved ones', async (bad) => {
        const store = await freshStore();
        await store.updateSettingsOverrides(() => ({ greeting: 'Hi' }));
        await expect(store.updateSettingsOverrides(() => bad as unknown as Record<string, unknown>)).rejects.toThrow(
          TypeError,
        );
        expect(await store.loadSettingsOverrides()).toEqual({ greeting: 'Hi' });
      });
    });

    describe('OAuth tokens', () => {
      it('keeps one token set per tenant and provider; a save replaces it', async () => {
        const store = await freshStore();
        expect(await store.loadOAuthToken('acme', 'github')).toBeNull();
        await store.saveOAuthToken(token);
        await store.saveOAuthToken({ ...token, tenantId: 'globex', accessToken: 'access-globex' });
        expect(await store.loadOAuthToken('acme', 'github')).toEqual(token);
        await store.saveOAuthToken({
          ...token,
          accessToken: 'access-2',
          refreshToken: null,
          scope: null,
          expiresAt: null,
        });
        expect(await store.loadOAuthToken('acme', 'github')).toEqual({
          ...token,
          accessToken: 'access-2',
          refreshToken: null,
          scope: null,
          expiresAt: null,
        });
        expect((await store.loadOAuthToken('globex', 'github'))?.accessToken).toBe('access-globex');
        expect(await store.loadOAuthToken('acme', 'google')).toBeNull();
      });

      it.each<[string, Partial<StoredOAuthToken>]>([
        ['an empty access token', { accessToken: '' }],
        ['an empty provider', { provider: '' }],
        ['an expiry that is no timestamp', { expiresAt: 'soon' }],
      ])('rejects a token set with %s', async (_label, bad) => {
        const store = await freshStore();
        await expect(store.saveOAuthToken({ ...token, ...bad })).rejects.toThrow(TypeError);
        expect(await store.loadOAuthToken('acme', token.provider)).toBeNull();
      });
    });

    describe('OAuth states', () => {
      const inTenMinutes = () => Date.now() + 10 * 60_000;
      const record = (name: string) =>
        JSON.stringify({
          provider: 'github',
          tenantId: 'acme',
          codeVerifier: `verifier-${name}`,
          redirectUri: 'https://actor.example/oauth/callback',
        });

      it('gives a state back once, with its record and expiry; an unknown state is null', async () => {
        const store = await freshStore();
        const expiresAtMs = inTenMinutes();
        await store.putOAuthState('state-1', record('1'), expiresAtMs);
        await store.putOAuthState('state-2', record('2'), expiresAtMs + 1);
        expect(await store.takeOAuthState('state-1')).toEqual({ record: record('1'), expiresAtMs });
        expect(await store.takeOAuthState('state-1')).toBeNull();
        expect(await store.takeOAuthState('never-put')).toBeNull();
        expect(await store.takeOAuthState('state-2')).toEqual({ record: record('2'), expiresAtMs: expiresAtMs + 1 });
      });

      it('replaces the record of a state put again', async () => {
        const store = await freshStore();
        await store.putOAuthState('state-1', record('old'), inTenMinutes());
        const expiresAtMs = inTenMinutes() + 5_000;
        await store.putOAuthState('state-1', record('new'), expiresAtMs);
        expect(await store.takeOAuthState('state-1')).toEqual({ record: record('new'), expiresAtMs });
        expect(await store.takeOAuthState('state-1')).toBeNull();
      });

      it('returns an expired state not yet swept, so the caller can refuse it as expired', async () => {
        const store = await freshStore();
        const expiredAtMs = Date.now() - 1_000;
        await store.putOAuthState('late', record('late'), expiredAtMs);
        expect(await store.takeOAuthState('late')).toEqual({ record: record('late'), expiresAtMs: expiredAtMs });
        expect(await store.takeOAuthState('late')).toBeNull();
      });

      it('sweeps expired states when a new one is put, and keeps the pending ones', async () => {
        const store = await freshStore();
        await store.putOAuthState('expired-1', record('e1'), Date.now() - 60_000);
        await store.putOAuthState('expired-2', record('e2'), 0);
        await store.putOAuthState('pending', record('p'), inTenMinutes());
        await store.putOAuthState('trigger', record('t'), inTenMinutes());
        expect(await store.takeOAuthState('expired-1')).toBeNull();
        expect(await store.takeOAuthState('expired-2')).toBeNull();
        expect(await store.takeOAuthState('pending')).not.toBeNull();
        expect(await store.takeOAuthState('trigger')).not.toBeNull();
      });

      it('gives each state to exactly one of many concurrent takes', async () => {
        const store = await freshStore();
        const states = Array.from({ length: 10 }, (_, index) => `contested-${index}`);
        await Promise.all(states.map((state) => store.putOAuthState(state, record(state), inTenMinutes())));
        const takes = await Promise.all(
          states.flatMap((state) =>
            Array.from({ length: 4 }, async () => [state, await store.takeOAuthState(state)] as const),
          ),
        );
        for (const state of states) {
          const won = takes.filter(([taken, result]) => taken === state && result !== null);
          expect(won, state).toHaveLength(1);
          expect(won[0]![1]!.record).toBe(record(state));
        }
      });

      it.each<[string, () => [string, string, number]]>([
        ['an empty state', () => ['', record('x'), inTenMinutes()]],
        ['a state longer than 512 characters', () => ['s'.repeat(513), record('x'), inTenMinutes()]],
        ['a record that is not a string', () => ['state', { codeVerifier: 'v' } as unknown as string, inTenMinutes()]],
        ['an empty record', () => ['state', '', inTenMinutes()]],
        ['a record longer than 16 KiB', () => ['state', 'r'.repeat(16_385), inTenMinutes()]],
        ['a NaN expiry', () => ['state', record('x'), Number.NaN]],
        ['a fractional expiry', () => ['state', record('x'), 1.5]],
        ['a negative expiry', () => ['state', record('x'), -1]],
      ])('rejects a put with %s and stores nothing', async (_label, args) => {
        const store = await freshStore();
        const [state, bad, expiresAtMs] = args();
        await expect(store.putOAuthState(state, bad, expiresAtMs)).rejects.toThrow(TypeError);
        if (typeof state === 'string' && state.length > 0) expect(await store.takeOAuthState(state)).toBeNull();
      });

      it('answers null for a state that cannot have been put, and rejects a state that is not a string', async () => {
        const store = await freshStore();
        expect(await store.takeOAuthState('')).toBeNull();
        expect(await store.takeOAuthState('s'.repeat(600))).toBeNull();
        await expect(store.takeOAuthState(42 as unknown as string)).rejects.toThrow(TypeError);
      });
    });

    describe('idempotency keys', () => {
      it('claims a free key once; later claims see it running, then completed', async () => {
        const store = await freshStore();
        expect(await store.claimIdempotencyKey('key-1', 'fp-1', 60_000)).toBeNull();
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toEqual({
          state: 'running',
          fingerprint: 'fp-1',
        });
        await store.completeIdempotencyKey('key-1', 200, '{"ok":true}');
        expect(await store.claimIdempotencyKey('key-1', 'fp-1', 60_000)).toEqual({
          state: 'completed',
          fingerprint: 'fp-1',
          status: 200,
          body: '{"ok":true}',
        });
        expect(await store.claimIdempotencyKey('key-2', 'fp-1', 60_000)).toBeNull();
      });

      it('completes a claimed key with the turn, in the call that counts it and only then', async () => {
        const store = await freshStore();
        const completion = { key: 'key-1', status: 200, body: '{"turn":1}', ttlMs: 60_000 };
        expect(await store.claimIdempotencyKey('key-1', 'fp-1', 60_000)).toBeNull();
        const record = invocation({ idempotency: completion, history: [message('m1')] });
        await store.saveTurns([invocation(), record]);
        expect(await store.claimIdempotencyKey('key-1', 'fp-1', 60_000)).toEqual({
          state: 'completed',
          fingerprint: 'fp-1',
          status: 200,
          body: '{"turn":1}',
        });
        // A retried turn is not counted again, and completes nothing again.
        await store.releaseIdempotencyKey('key-1');
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toBeNull();
        await store.saveTurns([record]);
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toEqual({
          state: 'running',
          fingerprint: 'fp-2',
        });
        expect((await store.readStats()).invocations).toBe(2);
        // A key nobody claimed stays free.
        await store.saveTurns([invocation({ idempotency: { ...completion, key: 'never-claimed' } })]);
        expect(await store.claimIdempotencyKey('never-claimed', 'fp-1', 60_000)).toBeNull();
      });

      it.each([
        ['no key', { key: '', status: 200, body: '{}', ttlMs: 1_000 }],
        ['a status that is not HTTP', { key: 'k', status: 99, body: '{}', ttlMs: 1_000 }],
        ['a body that is not text', { key: 'k', status: 200, body: 1 as unknown as string, ttlMs: 1_000 }],
        ['a negative time-to-live', { key: 'k', status: 200, body: '{}', ttlMs: -1 }],
      ])('refuses a turn whose idempotency completion has %s, counting nothing', async (_label, idempotency) => {
        const store = await freshStore();
        await expect(store.saveTurns([invocation({ idempotency })])).rejects.toThrow(TypeError);
        expect((await store.readStats()).invocations).toBe(0);
      });

      it('frees a released key', async () => {
        const store = await freshStore();
        await store.claimIdempotencyKey('key-1', 'fp-1', 60_000);
        await store.releaseIdempotencyKey('key-1');
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toBeNull();
        expect(await store.claimIdempotencyKey('key-1', 'fp-3', 60_000)).toEqual({
          state: 'running',
          fingerprint: 'fp-2',
        });
        await store.releaseIdempotencyKey('never-claimed');
      });

      it('treats an expired key as free', async () => {
        const store = await freshStore();
        await store.claimIdempotencyKey('key-1', 'fp-1', 1);
        await store.completeIdempotencyKey('key-1', 200, 'old');
        await new Promise((resolve) => setTimeout(resolve, 15));
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toBeNull();
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toEqual({
          state: 'running',
          fingerprint: 'fp-2',
        });
      });

      it("keeps a completed reply for the time-to-live it is completed with, not the claim's", async () => {
        const store = await freshStore();
        await store.claimIdempotencyKey('key-1', 'fp-1', 1);
        await store.completeIdempotencyKey('key-1', 200, 'kept', 60_000);
        await new Promise((resolve) => setTimeout(resolve, 15));
        expect(await store.claimIdempotencyKey('key-1', 'fp-2', 60_000)).toEqual({
          state: 'completed',
          fingerprint: 'fp-1',
          status: 200,
          body: 'kept',
        });
        await store.claimIdempotencyKey('key-2', 'fp-1', 60_000);
        await expect(store.completeIdempotencyKey('key-2', 200, 'x', 0)).rejects.toThrow(TypeError);
      });

      it('lets exactly one of many concurrent claims win', async () => {
        const store = await freshStore();
        const claims = await Promise.all(
          Array.from({ length: 12 }, (_, index) => store.claimIdempotencyKey('contested', `fp-${index}`, 60_000)),
        );
        expect(claims.filter((claim) => claim === null)).toHaveLength(1);
      });

      it.each<[string, () => [string, string, number]]>([
        ['an empty key', () => ['', 'fp', 1000]],
        ['a zero time-to-live', () => ['key', 'fp', 0]],
        ['a NaN time-to-live', () => ['key', 'fp', Number.NaN]],
      ])('rejects a claim with %s', async (_label, args) => {
        const store = await freshStore();
        await expect(store.claimIdempotencyKey(...args())).rejects.toThrow(TypeError);
      });
    });

    describe('runs', () => {
      it('writes a new run and reads it back as written; unknown ids are null', async () => {
        const store = await freshStore();
        const run = storedRun({ background: true, sideEffects: true });
        await store.writeRuns([{ run }]);
        expect(await store.readRun(run.id)).toEqual(run);
        expect(await store.readRun('inv_unknown')).toBeNull();
        await store.writeRuns([]);
      });

      it("updates a run its runner holds, up to its end; another runner's write is left alone", async () => {
        const store = await freshStore();
        const run = storedRun();
        await store.writeRuns([{ run }]);
        const progressed = { ...run, lastSeq: 3, sideEffects: true, leaseExpiresAtMs: run.createdAtMs + 90_000 };
        await store.writeRuns([{ run: progressed }]);
        expect(await store.readRun(run.id)).toEqual(progressed);
        await store.writeRuns([{ run: { ...progressed, runner: 'runner-b', state: 'failed', lastSeq: 9 } }]);
        expect(await store.readRun(run.id)).toEqual(progressed);
        const completed: StoredRun = {
          ...progressed,
          state: 'completed',
          finishedAtMs: run.createdAtMs + 1_000,
          inputTokens: 12,
          outputTokens: 34,
          reply: '{"id":"r"}',
          leaseExpiresAtMs: null,
          lastSeq: 5,
        };
        await store.writeRuns([{ run: completed }]);
        expect(await store.readRun(run.id)).toEqual(completed);
      });

      it('never writes a finished run back to one in progress, nor to another end', async () => {
        const store = await freshStore();
        const run = storedRun();
        const cancelled: StoredRun = {
          ...run,
          state: 'cancelled',
          finishedAtMs: run.createdAtMs + 10,
          problem: '{"code":"run_cancelled","title":"Cancelled"}',
          leaseExpiresAtMs: null,
        };
        await store.writeRuns([{ run }]);
        await store.writeRuns([{ run: cancelled }]);
        await store.writeRuns([{ run: { ...run, lastSeq: 7 } }]);
        await store.writeRuns([{ run: { ...cancelled, state: 'completed', reply: '{}' } }]);
        expect(await store.readRun(run.id)).toEqual(cancelled);
        expect(await store.readActiveRun('acme', 's-1')).toBeNull();
      });

      it('keeps a requested cancel through later writes of its runner, which do not know of it', async () => {
        const store = await freshStore();
        const run = storedRun();
        await store.writeRuns([{ run }]);
        expect(await store.requestRunCancel(run.id)).toEqual({ ...run, cancelRequested: true });
        await store.writeRuns([{ run: { ...run, lastSeq: 2 } }]);
        expect(await store.readRun(run.id)).toEqual({ ...run, lastSeq: 2, cancelRequested: true });
        expect(await store.cancelledRuns([run.id])).toEqual([run.id]);
      });

      it('stores a part batch once: the same batch written again adds nothing', async () => {
        const store = await freshStore();
        const run = storedRun({ lastSeq: 3 });
        const batch = { firstSeq: 1, parts: partsFrom(1, 3) };
        await store.writeRuns([{ run, parts: batch }]);
        await store.writeRuns([{ run, parts: batch }]);
        await store.writeRuns([{ run, parts: { firstSeq: 4, parts: [] } }]);
        expect(seqAndPart(await store.readRunParts(run.id, 0, 100))).toEqual(
          partsFrom(1, 3).map((part, index) => [index + 1, JSON.parse(part)]),
        );
      });

      it('stores of a batch retried longer (its first write committed, its answer lost) only the new parts', async () => {
        const store = await freshStore();
        const run = storedRun();
        const all = partsFrom(1, 6);
        await store.writeRuns([{ run: { ...run, lastSeq: 2 }, parts: { firstSeq: 1, parts: all.slice(0, 2) } }]);
        await store.writeRuns([{ run: { ...run, lastSeq: 4 }, parts: { firstSeq: 1, parts: all.slice(0, 4) } }]);
        await store.writeRuns([{ run: { ...run, lastSeq: 6 }, parts: { firstSeq: 5, parts: all.slice(4, 6) } }]);
        expect(seqAndPart(await store.readRunParts(run.id, 0, 100))).toEqual(
          all.map((part, index) => [index + 1, JSON.parse(part)]),
        );
      });

      it('stores no parts with a write it refuses: a runner that lost its run, or a write after the end', async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const run = storedRun({ leaseExpiresAtMs: nowMs - 1, lastSeq: 1 });
        await store.writeRuns([{ run, parts: { firstSeq: 1, parts: partsFrom(1, 1) } }]);
        const [taken] = await store.takeExpiredRuns('runner-b', nowMs, nowMs + 20_000, 10);
        // The runner that lost it (still alive, late) writes on; the one that took it ends it with an error part.
        await store.writeRuns([{ run: { ...run, lastSeq: 3 }, parts: { firstSeq: 2, parts: partsFrom(2, 2) } }]);
        const errorPart = JSON.stringify({ type: 'error', errorText: 'runner_lost' });
        const failed = { ...taken!, state: 'failed' as const, finishedAtMs: nowMs, leaseExpiresAtMs: null, lastSeq: 2 };
        await store.writeRuns([{ run: failed, parts: { firstSeq: 2, parts: [errorPart] } }]);
        await store.writeRuns([{ run: { ...failed, lastSeq: 3 }, parts: { firstSeq: 3, parts: partsFrom(3, 1) } }]);
        expect(seqAndPart(await store.readRunParts(run.id, 0, 100))).toEqual([
          [1, JSON.parse(partsFrom(1, 1)[0]!)],
          [2, JSON.parse(errorPart)],
        ]);
        expect(await store.readRun(run.id)).toEqual(failed);
      });

      it('reads exactly the parts after a cursor, in order, across batches, at most the limit', async () => {
        const store = await freshStore();
        const run = storedRun();
        const other = storedRun({ sessionId: 's-2' });
        const all = partsFrom(1, 9);
        // Batches of 3, 2 and 4 parts, in separate writes and one write with two runs.
        await store.writeRuns([{ run: { ...run, lastSeq: 3 }, parts: { firstSeq: 1, parts: all.slice(0, 3) } }]);
        await store.writeRuns([
          { run: { ...run, lastSeq: 5 }, parts: { firstSeq: 4, parts: all.slice(3, 5) } },
          { run: other, parts: { firstSeq: 1, parts: partsFrom(100, 2) } },
        ]);
        await store.writeRuns([{ run: { ...run, lastSeq: 9 }, parts: { firstSeq: 6, parts: all.slice(5) } }]);
        const expected = (from: number, to: number) =>
          all.slice(from - 1, to).map((part, index): [number, unknown] => [from + index, JSON.parse(part)]);
        for (const after of [0, 1, 2, 3, 4, 5, 8, 9])
          expect(seqAndPart(await store.readRunParts(run.id, after, 100))).toEqual(expected(after + 1, 9));
        expect(seqAndPart(await store.readRunParts(run.id, 2, 4))).toEqual(expected(3, 6));
        expect(seqAndPart(await store.readRunParts(run.id, 4, 1))).toEqual(expected(5, 5));
        expect(seqAndPart(await store.readRunParts(run.id, 0, 9))).toEqual(expected(1, 9));
        expect(await store.readRunParts(run.id, 20, 100)).toEqual([]);
        expect(await store.readRunParts('inv_unknown', 0, 100)).toEqual([]);
        expect((await store.readRunParts(other.id, 0, 100)).map((part) => part.seq)).toEqual([1, 2]);
      });

      it('finds the newest run of a session still in progress, and only in its tenant and session', async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const older = storedRun({ createdAtMs: nowMs - 3_000, id: newRunId(nowMs - 3_000) });
        const newer = storedRun({ createdAtMs: nowMs - 2_000, id: newRunId(nowMs - 2_000), state: 'awaiting_input' });
        const finished = storedRun({
          createdAtMs: nowMs - 1_000,
          id: newRunId(nowMs - 1_000),
          state: 'completed',
          finishedAtMs: nowMs,
          leaseExpiresAtMs: null,
        });
        const elsewhere = [storedRun({ tenantId: 'other' }), storedRun({ sessionId: 's-2', state: 'queued' })];
        await store.writeRuns([older, newer, finished, ...elsewhere].map((run) => ({ run })));
        expect(await store.readActiveRun('acme', 's-1')).toEqual(newer);
        expect(await store.readActiveRun('acme', 's-2')).toEqual(elsewhere[1]);
        expect(await store.readActiveRun('acme', 's-3')).toBeNull();
        expect(await store.readActiveRun('nobody', 's-1')).toBeNull();
        const ended = { ...newer, state: 'failed' as const, finishedAtMs: nowMs, leaseExpiresAtMs: null };
        await store.writeRuns([{ run: ended }]);
        expect(await store.readActiveRun('acme', 's-1')).toEqual(older);
      });

      it('asks a run in progress to cancel; an unknown run is null and a finished one is left as it is', async () => {
        const store = await freshStore();
        const running = storedRun();
        const completed = storedRun({ state: 'completed', finishedAtMs: Date.now(), leaseExpiresAtMs: null });
        await store.writeRuns([{ run: running }, { run: completed }]);
        expect(await store.requestRunCancel('inv_unknown')).toBeNull();
        expect(await store.requestRunCancel(completed.id)).toEqual(completed);
        expect(await store.readRun(completed.id)).toEqual(completed);
        expect(await store.requestRunCancel(running.id)).toEqual({ ...running, cancelRequested: true });
        expect(await store.requestRunCancel(running.id)).toEqual({ ...running, cancelRequested: true });
      });

      it('names, of the runs asked about, those asked to cancel', async () => {
        const store = await freshStore();
        const [one, two, three] = [storedRun(), storedRun(), storedRun()];
        await store.writeRuns([one, two, three].map((run) => ({ run })));
        expect(await store.cancelledRuns([one.id, two.id, three.id])).toEqual([]);
        await store.requestRunCancel(one.id);
        await store.requestRunCancel(three.id);
        expect((await store.cancelledRuns([one.id, two.id, three.id, 'inv_unknown'])).sort()).toEqual(
          [one.id, three.id].sort(),
        );
        expect(await store.cancelledRuns([two.id])).toEqual([]);
        expect(await store.cancelledRuns([])).toEqual([]);
      });

      it('takes over only runs in progress whose lease expired, giving them the new runner and lease, each once', async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const expired = storedRun({ leaseExpiresAtMs: nowMs - 5_000, lastSeq: 4, sideEffects: true });
        const expiredQueued = storedRun({ state: 'queued', leaseExpiresAtMs: nowMs - 1 });
        const live = storedRun({ leaseExpiresAtMs: nowMs + 5_000 });
        const finished = storedRun({ state: 'failed', finishedAtMs: nowMs - 9_000, leaseExpiresAtMs: nowMs - 9_000 });
        const unleased = storedRun({ leaseExpiresAtMs: null });
        await store.writeRuns([expired, expiredQueued, live, finished, unleased].map((run) => ({ run })));
        const leaseMs = nowMs + 20_000;
        const taken = await store.takeExpiredRuns('runner-b', nowMs, leaseMs, 10);
        const takenOver = (run: StoredRun) => ({ ...run, runner: 'runner-b', leaseExpiresAtMs: leaseMs });
        expect([...taken].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
          [takenOver(expired), takenOver(expiredQueued)].sort((a, b) => a.id.localeCompare(b.id)),
        );
        expect(await store.readRun(expired.id)).toEqual(takenOver(expired));
        for (const untouched of [live, finished, unleased])
          expect(await store.readRun(untouched.id)).toEqual(untouched);
        expect(await store.takeExpiredRuns('runner-c', nowMs, leaseMs, 10)).toEqual([]);
        // The runner that lost it writes in vain; the new one ends it.
        await store.writeRuns([{ run: { ...expired, lastSeq: 8 } }]);
        expect(await store.readRun(expired.id)).toEqual(takenOver(expired));
        const failed = { ...takenOver(expired), state: 'failed' as const, finishedAtMs: nowMs, leaseExpiresAtMs: null };
        await store.writeRuns([{ run: failed }]);
        expect(await store.readRun(expired.id)).toEqual(failed);
      });

      it('takes at most the limit of expired runs; the next sweep takes the rest', async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const runs = [3, 1, 4, 2].map((age) => storedRun({ leaseExpiresAtMs: nowMs - age * 1_000 }));
        await store.writeRuns(runs.map((run) => ({ run })));
        const first = await store.takeExpiredRuns('runner-b', nowMs, nowMs + 20_000, 3);
        const rest = await store.takeExpiredRuns('runner-c', nowMs, nowMs + 20_000, 10);
        expect(first).toHaveLength(3);
        expect([...first, ...rest].map((run) => run.id).sort()).toEqual(runs.map((run) => run.id).sort());
      });

      it('records decisions on a waiting run only while its approvals read `before`: of two deciders at once, one wins', async () => {
        const store = await freshStore();
        const asked = '[{"id":"apr_1"}]';
        const waiting = storedRun({ state: 'awaiting_input', approvals: asked });
        await store.writeRuns([{ run: waiting }]);
        const decided = '[{"id":"apr_1","decision":{"approved":true}}]';
        const denied = '[{"id":"apr_1","decision":{"approved":false}}]';
        const [first, second] = await Promise.all([
          store.decideRunApprovals(waiting.id, asked, decided),
          store.decideRunApprovals(waiting.id, asked, denied),
        ]);
        expect([first, second].filter((run) => run !== null)).toHaveLength(1);
        const winner = first ?? second;
        expect(winner).toEqual({ ...waiting, approvals: winner!.approvals });
        expect(await store.readRun(waiting.id)).toEqual(winner);
        expect(await store.decideRunApprovals(waiting.id, asked, decided)).toBeNull();
        expect(await store.readRun(waiting.id)).toEqual(winner);
      });

      it('resumes a waiting run with its last decision: running again, held by the deciding runner until its lease', async () => {
        const store = await freshStore();
        const asked = '[{"id":"apr_1"},{"id":"apr_2"}]';
        const waiting = storedRun({
          state: 'awaiting_input',
          approvals: asked,
          leaseExpiresAtMs: Date.now() + 86_400_000,
        });
        await store.writeRuns([{ run: waiting }]);
        const half = '[{"id":"apr_1","decision":{"approved":true}},{"id":"apr_2"}]';
        expect(await store.decideRunApprovals(waiting.id, asked, half)).toEqual({ ...waiting, approvals: half });
        const all = '[{"id":"apr_1","decision":{"approved":true}},{"id":"apr_2","decision":{"approved":false}}]';
        const lease = { runner: 'runner-b', leaseExpiresAtMs: Date.now() + 30_000 };
        const resumed = { ...waiting, approvals: all, state: 'running' as const, ...lease };
        expect(await store.decideRunApprovals(waiting.id, half, all, lease)).toEqual(resumed);
        expect(await store.readRun(waiting.id)).toEqual(resumed);
        // Running again, it waits for nothing: a late answer finds no waiting run.
        expect(await store.decideRunApprovals(waiting.id, all, all, lease)).toBeNull();
      });

      it('decides nothing on an unknown run, nor on one that is not waiting', async () => {
        const store = await freshStore();
        const approvals = '[{"id":"apr_1"}]';
        const running = storedRun({ approvals });
        const completed = storedRun({
          state: 'completed',
          finishedAtMs: Date.now(),
          leaseExpiresAtMs: null,
          approvals,
        });
        await store.writeRuns([{ run: running }, { run: completed }]);
        const lease = { runner: 'runner-b', leaseExpiresAtMs: Date.now() + 30_000 };
        expect(await store.decideRunApprovals('inv_unknown', approvals, '[]', lease)).toBeNull();
        expect(await store.decideRunApprovals(running.id, approvals, '[]', lease)).toBeNull();
        expect(await store.decideRunApprovals(completed.id, approvals, '[]', lease)).toBeNull();
        expect(await store.readRun(running.id)).toEqual(running);
        expect(await store.readRun(completed.id)).toEqual(completed);
      });

      it('takes a waiting run once its deadline passed `deadlineMs`, and leaves one not due even when `nowMs` is far ahead', async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const approvals = '[{"id":"apr_1"}]';
        const due = storedRun({ state: 'awaiting_input', approvals, leaseExpiresAtMs: nowMs - 1_000 });
        const notDue = storedRun({ state: 'awaiting_input', approvals, leaseExpiresAtMs: nowMs + 3_600_000 });
        const runnerGone = storedRun({ leaseExpiresAtMs: nowMs + 60_000 });
        await store.writeRuns([due, notDue, runnerGone].map((run) => ({ run })));
        // A restarted process on its own file takes every running run (`nowMs` far ahead), but only waiting ones past due.
        const lease = nowMs + 20_000;
        const taken = await store.takeExpiredRuns('runner-b', Number.MAX_SAFE_INTEGER, lease, 10, nowMs);
        const takenBy = (run: StoredRun) => ({ ...run, runner: 'runner-b', leaseExpiresAtMs: lease });
        expect([...taken].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
          [takenBy(due), takenBy(runnerGone)].sort((a, b) => a.id.localeCompare(b.id)),
        );
        expect(await store.readRun(notDue.id)).toEqual(notDue);
        // Without `deadlineMs`, the deadline is `nowMs`: a waiting run not yet due stays.
        expect(await store.takeExpiredRuns('runner-c', nowMs, lease, 10)).toEqual([]);
        // Once its deadline passed, it is taken (to be denied, `approval_expired`), still waiting.
        const later = await store.takeExpiredRuns('runner-c', nowMs + 3_600_001, lease, 10);
        expect(later).toContainEqual({ ...notDue, runner: 'runner-c', leaseExpiresAtMs: lease });
      });

      it('keeps the stored request when its runner writes a waiting run with an empty request', async () => {
        const store = await freshStore();
        const run = storedRun();
        await store.writeRuns([{ run }]);
        const waiting = { ...run, state: 'awaiting_input' as const, approvals: '[{"id":"apr_1"}]', lastSeq: 2 };
        await store.writeRuns([{ run: { ...waiting, request: '' } }]);
        expect(await store.readRun(run.id)).toEqual(waiting);
        const changed = { ...waiting, request: '{"user_identifier":"u","session_id":"s-1","message":"again"}' };
        await store.writeRuns([{ run: changed }]);
        expect(await store.readRun(run.id)).toEqual(changed);
      });

      it('lists the runs of a tenant awaiting input, the longest waiting first, at most the limit', async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const approvals = '[{"id":"apr_1","tool_call_id":"c1","tool":"mail_send","arguments":{},"asked_at_ms":1}]';
        const waiting = (ageMs: number, overrides: Partial<StoredRun> = {}) =>
          storedRun({
            id: newRunId(nowMs - ageMs),
            createdAtMs: nowMs - ageMs,
            state: 'awaiting_input',
            approvals,
            ...overrides,
          });
        const [newest, oldest, middle] = [waiting(1_000), waiting(3_000), waiting(2_000, { sessionId: 's-2' })];
        const others = [
          waiting(4_000, { tenantId: 'other' }),
          storedRun({ createdAtMs: nowMs - 5_000, id: newRunId(nowMs - 5_000) }),
          storedRun({ state: 'completed', finishedAtMs: nowMs, leaseExpiresAtMs: null }),
        ];
        await store.writeRuns([newest, oldest, middle, ...others].map((run) => ({ run })));
        expect(await store.readAwaitingRuns('acme', 10)).toEqual([oldest, middle, newest]);
        expect(await store.readAwaitingRuns('acme', 2)).toEqual([oldest, middle]);
        expect(await store.readAwaitingRuns('other', 10)).toEqual([others[0]]);
        expect(await store.readAwaitingRuns('nobody', 10)).toEqual([]);
        // Once decided, a run goes on and leaves the list.
        await store.decideRunApprovals(oldest.id, approvals, '[]', { runner: 'runner-b', leaseExpiresAtMs: nowMs });
        expect(await store.readAwaitingRuns('acme', 10)).toEqual([middle, newest]);
      });

      it("lists a tenant's runs, the newest first, of a session, a page after a run", async () => {
        const store = await freshStore();
        const nowMs = Date.now();
        const run = (ageMs: number, overrides: Partial<StoredRun> = {}) =>
          storedRun({ id: newRunId(nowMs - ageMs), createdAtMs: nowMs - ageMs, ...overrides });
        const [newest, middle, oldest, elsewhere, other] = [
          run(1_000),
          run(2_000, { sessionId: 's-2' }),
          run(3_000),
          run(4_000, { tenantId: 'other' }),
          run(5_000, { tenantId: 'other', sessionId: 's-2' }),
        ];
        await store.writeRuns([oldest, newest, middle, elsewhere, other].map((item) => ({ run: item })));
        expect(await store.readTenantRuns('acme', { limit: 10 })).toEqual([newest, middle, oldest]);
        expect(await store.readTenantRuns('acme', { limit: 2 })).toEqual([newest, middle]);
        expect(await store.readTenantRuns('acme', { limit: 2, beforeId: middle.id })).toEqual([oldest]);
        expect(await store.readTenantRuns('acme', { limit: 10, sessionId: 's-2' })).toEqual([middle]);
        expect(await store.readTenantRuns('other', { limit: 10 })).toEqual([elsewhere, other]);
        expect(await store.readTenantRuns('nobody', { limit: 10 })).toEqual([]);
      });
    });

    describe('lifecycle', () => {
      it('migrates idempotently and keeps the data', async () => {
        const store = await freshStore();
        await store.saveTurns([invocation()]);
        await store.migrate();
        await store.migrate();
        expect((await store.readStats()).invocations).toBe(1);
        await store.ping();
      });
    });
  });
}
