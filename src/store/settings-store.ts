/** The settings part of a store: the overrides `PUT /settings` saves, shared by replicas. */
export interface SettingsStore {
  /** Settings overrides saved by `PUT /settings`. */
  loadSettingsOverrides(): Promise<Record<string, unknown>>;
  /**
   * Replaces the saved settings overrides with `update(saved)` in one atomic step and returns
   * what was saved: concurrent updates, from any replica, run one after the other, each on what
   * the one before saved, so none is lost. When `update` throws, nothing changes and the call
   * rejects with its error.
   */
  updateSettingsOverrides(
    update: (saved: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}
