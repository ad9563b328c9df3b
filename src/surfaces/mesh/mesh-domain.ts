/** What a domain may look like in `/api/<domain>/`: lower-case letters, digits, `-` and `_`, starting with a letter. */
const MESH_DOMAIN_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;

/** Domains that would collide with the actor's own routes under `/api/`. */
const RESERVED_DOMAINS = new Set(['actor']);

/**
 * Checks a mesh domain and returns it; throws at setup for one that cannot name a route prefix.
 * @param domain the actor's domain module, e.g. `weather`
 */
export function checkMeshDomain(domain: string): string {
  if (!MESH_DOMAIN_PATTERN.test(domain)) {
    throw new Error(
      `Mesh domain ${JSON.stringify(domain)} must be 1–63 characters of a-z, 0-9, - and _, starting with a letter`,
    );
  }
  if (RESERVED_DOMAINS.has(domain))
    throw new Error(`Mesh domain ${JSON.stringify(domain)} is reserved: /api/${domain}/ belongs to the runtime`);
  return domain;
}
