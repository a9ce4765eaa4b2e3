/**
 * Reading a file someone handed us (an audit export to verify, an exported history to evaluate): only a
 * regular file, only up to a size, checked before a byte is read — a FIFO would block the read forever,
 * `/dev/zero` behind a symlink would never end, and a file of gigabytes would not fit in a string.
 */
import fs from 'node:fs';

/** `file`'s text; throws naming the file when it is not a regular file or is larger than `maxBytes`. */
export function readBoundedFile(file: string, maxBytes: number): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw new Error(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, {
      cause: err,
    });
  }
  if (!stat.isFile()) throw new Error(`${file}: not a regular file`);
  if (stat.size > maxBytes) throw new Error(`${file}: larger than ${maxBytes} bytes`);
  // Opened without blocking, and checked again on the descriptor: the path may have changed since.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const opened = fs.fstatSync(fd);
    if (!opened.isFile()) throw new Error(`${file}: not a regular file`);
    if (opened.size > maxBytes) throw new Error(`${file}: larger than ${maxBytes} bytes`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
