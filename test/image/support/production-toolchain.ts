/** The test and build toolchain, and the CLI's TypeScript loader: none belongs in a production image. */
const PRODUCTION_TOOLCHAIN = ['vitest', 'vite', 'typescript', 'rolldown', 'lightningcss', 'esbuild', 'tsx'] as const;

/**
 * Whether an entry of `node_modules` belongs to that toolchain: the package itself (`vitest`), its
 * scope folder (`@vitest`) or a package of its scope (`@esbuild/linux-x64`).
 * @param entry a top-level name under `node_modules`, or a scoped package name.
 */
export function isProductionToolchain(entry: string): boolean {
  return PRODUCTION_TOOLCHAIN.some((tool) => entry === tool || entry === `@${tool}` || entry.startsWith(`@${tool}/`));
}
