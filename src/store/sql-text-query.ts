import { CompiledQuery, type Kysely } from 'kysely';
import type { StoreDatabase } from './store-database.js';

/**
 * Runs ready SQL text with its parameters, without building or compiling a Kysely query.
 * @param executor the store's Kysely instance, or a transaction of it
 * @param text SQL text with the engine's placeholders
 * @param parameters the values bound to them
 */
export async function querySqlText<Row = unknown>(
  executor: Kysely<StoreDatabase>,
  text: string,
  parameters: readonly unknown[],
): Promise<Row[]> {
  const result = await executor.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]) as CompiledQuery<Row>);
  return [...result.rows];
}
