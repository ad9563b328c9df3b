import { CliError } from '../cli-error.js';

const DOMAIN =
  '(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?';
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^(?:${DOMAIN}/)?${COMPONENT}(?:/${COMPONENT})*$`);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Checks an image repository (`registry.example.com/team/weather`) against the OCI reference
 * grammar; a tag or digest in it, or anything else, is refused with code `invalid_repo`.
 * @param repository the `--repo` value or `actorkit.deployment.image_repo`.
 */
export function checkImageRepository(repository: string): string {
  if (repository.length <= 255 && REPOSITORY.test(repository)) return repository;
  const hint = /[:@][^/]*$/.test(repository) ? ' (give the repository without a tag or digest; use --tag)' : '';
  throw new CliError('refused', 'invalid_repo', `'${repository}' is not a valid image repository${hint}`);
}

/**
 * Checks an image tag: letters, digits, `_`, `.` and `-`, not starting with `.` or `-`, at most
 * 128 characters; anything else is refused with code `invalid_tag`.
 * @param tag the `--tag` value or `v<version>`.
 */
export function checkImageTag(tag: string): string {
  if (TAG.test(tag)) return tag;
  throw new CliError(
    'refused',
    'invalid_tag',
    `'${tag}' is not a valid image tag (letters, digits, _ . -; at most 128)`,
  );
}

/**
 * Refuses the tag `latest` (code `latest_tag_refused`), in any case: it moves with every push, so
 * the platform could not tell which build it deploys, and a registered actor would change under
 * its users. Returns the tag otherwise.
 * @param tag a tag that passed {@link checkImageTag}.
 */
export function refuseMovingTag(tag: string): string {
  if (tag.toLowerCase() !== 'latest') return tag;
  throw new CliError(
    'refused',
    'latest_tag_refused',
    "publish does not push 'latest': it moves with every push, so the platform could not tell which build it runs; use a version tag (the default is v<package.json version>, --bump raises it)",
  );
}
