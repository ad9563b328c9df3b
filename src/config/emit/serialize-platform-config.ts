import type { PlatformConfig } from '../platform-config.js';

/**
 * Serialises a configuration the one way the project writes it: two-space indent, keys in the
 * order the emitter built them, and a trailing newline.
 */
export function serializePlatformConfig(config: PlatformConfig): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}
