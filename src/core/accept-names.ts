/**
 * True when an `Accept` header names a media type (parameters and case ignored; wildcards do not count).
 * @param accept the header as sent
 * @param mediaType the media type, in lower case
 */
export function acceptNames(accept: string | undefined, mediaType: string): boolean {
  return (accept ?? '').split(',').some((type) => type.split(';', 1)[0]!.trim().toLowerCase() === mediaType);
}
