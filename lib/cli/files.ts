/**
 * The files a command-line tool reads and writes, opened so that what can be wrong with a path (nothing
 * there, a folder, no permission) is a message the user can act on (a CommandError: one line, exit
 * status 2), never an error object or a stream's unhandled `error` event.
 */
import type { WriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CommandError } from './command';

/** What is wrong with a path, in words. */
const problemWith = (path: string, error: unknown, writing: boolean) => {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return writing
        ? `${path}: there is no folder ${dirname(path)} to write it in`
        : `${path}: no such file`;
    case 'EISDIR':
      return `${path} is a folder, not a file`;
    case 'ENOTDIR':
      return `${path}: a part of the path is a file, not a folder`;
    case 'EACCES':
    case 'EPERM':
      return `${path}: permission denied (${writing ? 'writing' : 'reading'})`;
    default:
      return `${path}: ${(error as Error).message}`;
  }
};

/** Checks that a file can be read: it is there, it is a file (not a folder), and this user may read it. */
export const checkReadable = async (path: string): Promise<void> => {
  try {
    if ((await stat(path)).isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
    await (await open(path, 'r')).close();
  } catch (error) {
    throw new CommandError(problemWith(path, error, false));
  }
};

/**
 * Opens a file for writing (`w` truncates it, `a` appends), as a stream that is already open: a path
 * that cannot be written is a CommandError here, before anything is sent.
 */
export const openWritable = async (path: string, flags: 'w' | 'a'): Promise<WriteStream> => {
  try {
    if ((await stat(path).catch(() => undefined))?.isDirectory())
      throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
    return (await open(path, flags)).createWriteStream();
  } catch (error) {
    throw new CommandError(problemWith(path, error, true));
  }
};
