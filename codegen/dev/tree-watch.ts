/**
 * Watches a folder and its subfolders for changes to the entries in them, by name. Node's
 * `fs.watch(dir, { recursive: true })` on Linux watches each file it finds by its inode, so an
 * editor's "safe save" (write a new file, rename it over the old one: vim, JetBrains, sed -i)
 * leaves it watching the old inode, and every later save of that file goes unseen. A watch on a
 * folder reports its entries by name whatever their inodes, so this watches every folder, one
 * watch each, and adds the folders that appear later.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface TreeWatch {
  close(): void;
}

/**
 * Calls `onChange(folder, name)` for every entry that changes, appears or goes in `root` or below;
 * folders for which `skip` is true are not watched (nor what is under them).
 */
export function watchTree(
  root: string,
  onChange: (dir: string, name: string) => void,
  options: { skip?: (dir: string) => boolean; onError?: (dir: string, err: Error) => void } = {},
): TreeWatch {
  const watchers = new Map<string, FSWatcher>();
  const add = (dir: string) => {
    if (watchers.has(dir) || options.skip?.(dir)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, (_event, name) => {
        if (!name) return;
        const full = path.join(dir, name);
        if (isDirectory(full)) add(full);
        else if (watchers.has(full)) drop(full);
        onChange(dir, name);
      });
    } catch (err) {
      options.onError?.(dir, err as Error);
      return;
    }
    w.on('error', (err) => {
      drop(dir);
      options.onError?.(dir, err);
    });
    watchers.set(dir, w);
    for (const entry of entries(dir)) if (entry.isDirectory()) add(path.join(dir, entry.name));
  };
  const drop = (dir: string) => {
    for (const [watched, w] of watchers)
      if (watched === dir || watched.startsWith(dir + path.sep)) {
        w.close();
        watchers.delete(watched);
      }
  };
  add(root);
  return {
    close() {
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
