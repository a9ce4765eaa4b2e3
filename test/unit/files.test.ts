/** The demo file tools stay inside their workspace. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { confine, fileTools } from '../../src/tools/files';
import type { ToolContext } from '../../src/tools/define';

let root: string;
let outside: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-files-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-outside-'));
  fs.writeFileSync(path.join(root, 'in.txt'), 'inside');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});
const ctx = {} as ToolContext;

test('reads and deletes inside the workspace', async () => {
  const { readFile, deleteFile } = fileTools(() => root);
  expect(await readFile.execute({ path: 'in.txt' }, ctx)).toBe('inside');
  expect(await deleteFile.execute({ path: 'in.txt' }, ctx)).toBe('Deleted in.txt (6 bytes).');
  expect(fs.existsSync(path.join(root, 'in.txt'))).toBe(false);
  await expect(readFile.execute({ path: 'in.txt' }, ctx)).rejects.toThrow('in.txt does not exist');
});

test.each(['../secret.txt', `${'../'.repeat(10)}etc/passwd`, '/etc/passwd', 'link.txt'])(
  'refuses to escape the workspace: %s',
  async (p) => {
    await expect(confine(root, p)).rejects.toThrow(/outside the workspace/);
  },
);

test('never deletes through a symlink that points outside', async () => {
  const { deleteFile } = fileTools(() => root);
  await expect(deleteFile.execute({ path: 'link.txt' }, ctx)).rejects.toThrow(/outside the workspace/);
  expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
});

test('delete_file refuses a symlink and never deletes what it points to (inside or outside)', async () => {
  const { deleteFile } = fileTools(() => root);
  fs.writeFileSync(path.join(root, 'target.txt'), 'the target');
  fs.symlinkSync(path.join(root, 'target.txt'), path.join(root, 'inner-link.txt'));
  fs.symlinkSync('target.txt', path.join(root, 'relative-link.txt'));
  for (const link of ['inner-link.txt', 'relative-link.txt']) {
    await expect(deleteFile.execute({ path: link }, ctx)).rejects.toThrow(
      `${link} is a symbolic link; delete_file deletes regular files only, never a link or what it points to`,
    );
    await expect(deleteFile.preview!({ path: link }, ctx)).rejects.toThrow(`${link} is a symbolic link`);
    expect(fs.lstatSync(path.join(root, link)).isSymbolicLink()).toBe(true);
  }
  expect(fs.readFileSync(path.join(root, 'target.txt'), 'utf8')).toBe('the target');
  await expect(deleteFile.execute({ path: 'link.txt' }, ctx)).rejects.toThrow(/outside the workspace|symbolic link/);
  expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  // A file reached through a symlinked folder inside the workspace is that file: it may be deleted.
  fs.mkdirSync(path.join(root, 'real-dir'));
  fs.writeFileSync(path.join(root, 'real-dir', 'f.txt'), 'f');
  fs.symlinkSync(path.join(root, 'real-dir'), path.join(root, 'dir-link'));
  expect(await deleteFile.execute({ path: 'dir-link/f.txt' }, ctx)).toBe('Deleted dir-link/f.txt (1 bytes).');
  expect(fs.existsSync(path.join(root, 'real-dir', 'f.txt'))).toBe(false);
});
