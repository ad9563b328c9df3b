import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';

/** A running folder watch; `close` stops every watcher it opened. */
export interface TreeWatch {
  close(): void;
}

/**
 * Watches `root` and every folder below it, calling `onChange` with the path of each changed
 * entry. One non-recursive watcher per folder, so a file replaced by a rename (`sed -i`, editors
 * that save through a temporary file) is seen on every save: Node 20's `recursive` watch on Linux
 * watches the files themselves and goes deaf to a file after its first replacement. Folders that
 * appear later are watched as they appear.
 * @param root the folder to watch
 * @param onChange called for each change, with the changed path (or the folder, when the system does not say)
 */
export function watchTree(root: string, onChange: (path: string) => void): TreeWatch {
  const watchers = new Map<string, FSWatcher>();
  const watchFolder = (dir: string): void => {
    if (watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, file) => {
        const path = file === null ? dir : join(dir, file.toString());
        if (file !== null) watchIfFolder(path);
        onChange(path);
      });
    } catch {
      return; // Gone before it could be watched: its parent reports the change.
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) watchFolder(join(dir, entry.name));
  };
  const watchIfFolder = (path: string): void => {
    try {
      if (statSync(path).isDirectory()) watchFolder(path);
    } catch {
      // Deleted or renamed away: nothing to watch.
    }
  };
  watchFolder(root);
  return {
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
