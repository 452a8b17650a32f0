/**
 * How a command-line tool runs: its `main` gives the exit status; a failure the user can act on (a
 * wrong option, a missing file, an API that does not answer) is one line on stderr (with the usage for
 * a wrong option) and exit status 2; anything else is printed whole, also with 2.
 */

/** A failure the user can act on: its message alone says what to do. */
export class CommandError extends Error {}

/** A wrong option or argument: the message and the usage. */
export class UsageError extends CommandError {}

export const runCommand = async (usage: string, main: (argv: string[]) => Promise<number>) => {
  // Node 20 is supported here; the SDK's notice about its 2027 releases would only be noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (error instanceof UsageError || code.startsWith('ERR_PARSE_ARGS'))
      console.error(`${(error as Error).message}\n${usage}`);
    else if (error instanceof CommandError || code === 'ENOENT') console.error((error as Error).message);
    else console.error(error);
    process.exitCode = 2;
  }
};
