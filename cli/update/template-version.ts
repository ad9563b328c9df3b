/** One template version an update goes from or to. */
export interface TemplateVersion {
  /** The tag, branch or SHA; `null` for the bundled template. */
  readonly ref: string | null;
  /** The commit the ref resolved to; `null` for the bundled template. */
  readonly commit: string | null;
  /** For the template bundled with actorkit: the actorkit version it came with. */
  readonly actorkit?: string;
}

/**
 * A version as the update's messages name it: `v1.1.0 (1a2b3c4)`, the short commit alone when
 * the ref is a SHA or missing, or `actorkit 0.1.0 template` for the bundled template.
 * @param version the template version.
 */
export function versionLabel(version: TemplateVersion): string {
  if (version.actorkit !== undefined) return `actorkit ${version.actorkit} template`;
  const short = version.commit?.slice(0, 7) ?? 'unknown';
  if (version.ref === null || version.ref === 'HEAD' || version.commit?.startsWith(version.ref)) return short;
  return `${version.ref} (${short})`;
}

/**
 * A version as a noun that stands alone (conflict markers, the report's first line):
 * `template v1.1.0 (1a2b3c4)`, or `actorkit 0.1.0 template`.
 * @param version the template version.
 */
export function templateLabel(version: TemplateVersion): string {
  return version.actorkit !== undefined ? versionLabel(version) : `template ${versionLabel(version)}`;
}
