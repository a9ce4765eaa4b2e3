/**
 * The demo tools: real file operations confined to a workspace folder (`TILLER_WORKSPACE`,
 * default `./workspace`). Paths that resolve outside it — `..`, absolute paths, symlinks — are refused.
 * `delete_file` deletes regular files only: a symbolic link is refused, so neither the link nor what
 * it points to (inside the workspace or not) is deleted.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolDefinition } from './define';

/** The folder the demo's file tools are confined to: `TILLER_WORKSPACE`, else `./workspace`. */
export function workspaceRoot(): string {
  return path.resolve(process.env.TILLER_WORKSPACE ?? 'workspace');
}

/** Resolves `relative` inside `root`, following symlinks, or throws. */
export async function confine(root: string, relative: string): Promise<string> {
  const realRoot = await fs.realpath(root).catch(() => path.resolve(root));
  const target = path.resolve(realRoot, relative);
  let real = target;
  try {
    real = await fs.realpath(target);
  } catch {
    // a path that does not exist yet is checked lexically
  }
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + path.sep);
  if (path.isAbsolute(relative) || !inside(target) || !inside(real)) {
    throw new Error(`path "${relative}" is outside the workspace`);
  }
  return real;
}

/**
 * The entry `relative` names, inside `root`, without following a symlink in its last component:
 * its folder is resolved (and must be inside `root`), its name is kept. `confine` is checked first.
 */
async function confineEntry(root: string, relative: string): Promise<string> {
  const realRoot = await fs.realpath(root).catch(() => path.resolve(root));
  await confine(root, relative);
  const target = path.resolve(realRoot, relative);
  if (target === realRoot) throw new Error(`path "${relative}" is the workspace itself`);
  const folder = await fs.realpath(path.dirname(target)).catch(() => path.dirname(target));
  if (folder !== realRoot && !folder.startsWith(realRoot + path.sep)) {
    throw new Error(`path "${relative}" is outside the workspace`);
  }
  return path.join(folder, path.basename(target));
}

/** The regular file `relative` names (lstat: a symlink is refused, never followed), for deleting. */
async function regularFile(root: string, relative: string): Promise<{ file: string; size: number } | string> {
  const file = await confineEntry(root, relative);
  const stat = await friendly(relative, () => fs.lstat(file));
  if (stat.isSymbolicLink()) {
    throw new Error(
      `${relative} is a symbolic link; delete_file deletes regular files only, never a link or what it points to`,
    );
  }
  return stat.isFile() ? { file, size: stat.size } : `${relative} is not a file`;
}

/** File errors in words the model can act on, without the workspace's absolute path. */
async function friendly<T>(relative: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${relative} does not exist`, { cause: err });
    if (code === 'EISDIR') throw new Error(`${relative} is a directory`, { cause: err });
    if (code === 'EACCES' || code === 'EPERM') throw new Error(`permission denied for ${relative}`, { cause: err });
    throw err;
  }
}

const PathArgs = z.object({ path: z.string().min(1).describe('Path of the file, relative to the workspace') });

/**
 * The demo's file tools, confined to `root()`: `read_file` (read-only) and `delete_file` (with a preview;
 * it refuses a symbolic link).
 */
export function fileTools(root: () => string = workspaceRoot) {
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a text file from the workspace.',
    input: PathArgs,
    readOnly: true,
    async execute({ path: p }) {
      const file = await confine(root(), p);
      const text = await friendly(p, () => fs.readFile(file, 'utf8'));
      return text.length > 100_000 ? `${text.slice(0, 100_000)}\n[truncated: ${text.length} characters in all]` : text;
    },
  });
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file from the workspace. Needs human approval.',
    input: PathArgs,
    // The approver judges the real effect: what is in the file, not the model's word for it.
    async preview({ path: p }) {
      const found = await regularFile(root(), p);
      if (typeof found === 'string') return `${found}; nothing would be deleted.`;
      const head = (await fs.readFile(found.file, 'utf8')).split('\n').slice(0, 5).join('\n');
      return `would delete ${p} (${found.size} bytes). First lines:\n${head}`;
    },
    async execute({ path: p }) {
      const found = await regularFile(root(), p);
      if (typeof found === 'string') throw new Error(found);
      // unlink never follows a symlink: were the file swapped for one meanwhile, the link would go, not its target.
      await friendly(p, () => fs.unlink(found.file));
      return `Deleted ${p} (${found.size} bytes).`;
    },
  });
  return { readFile, deleteFile };
}

/** The demo tools `read_file` and `delete_file`, a worker's tools when it is given none. */
export function defaultTools(): ToolDefinition<any>[] {
  const { readFile, deleteFile } = fileTools();
  return [readFile, deleteFile];
}
