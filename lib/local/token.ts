/**
 * `npm run token -- --sub alice [--delegate]`: prints a token of the local development issuer
 * (dev-issuer.ts) that `npm start` runs with `REQUESTER_BINDING=on` and no `JWT_ISSUER`, valid for an
 * hour. It signs with the key the running server left for its port (`--port`, else `PORT`, else 3000)
 * in a folder of the user's own under the OS temp dir; `--data DIR` reads the key kept in that data
 * folder instead, the server running or not. Only the token goes to stdout: `npm run -s token -- ...`
 * is what `$(...)` captures.
 */
import { parseArgs } from 'node:util';
import { CommandError, runCommand, UsageError } from '../cli/command';
import {
  DEFAULT_PORT,
  dataIssuerFile,
  type IssuerFile,
  portIssuerFile,
  readIssuerFile,
  signToken,
} from './dev-issuer';

const USAGE = `Usage: npm run -s token -- --sub <subject> [--delegate] [--expires 1h] [--port ${DEFAULT_PORT} | --data DIR]
  --sub       the token's subject: who the caller is (with the issuer, the principal bound to a person)
  --delegate  a delegate's token (scope persons/delegate): it may write as any person
  --expires   how long it is valid, as jose reads a time span (1h, 15m; --expires=-1m: expired already)
  --port      the port of the running npm start (default PORT, else ${DEFAULT_PORT})
  --data      the --data folder of npm start: its kept key, whether the server runs or not`;

const issuerFor = async ({ port, data }: { port?: string; data?: string }): Promise<IssuerFile> => {
  if (data !== undefined) {
    const kept = await readIssuerFile(dataIssuerFile(data));
    if (!kept)
      throw new CommandError(
        `${dataIssuerFile(data)} does not exist: start the server once with REQUESTER_BINDING=on npm start -- --data ${data} (and no JWT_ISSUER)`,
      );
    return kept;
  }
  const number = Number(port ?? process.env.PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(number) || number < 1 || number > 65_535)
    throw new UsageError(`--port must be a port number, not ${port}`);
  const running = await readIssuerFile(portIssuerFile(number));
  if (!running)
    throw new CommandError(
      `No local development issuer runs on port ${number}: start one with REQUESTER_BINDING=on npm start ` +
        '(without JWT_ISSUER; with it, tokens come from that issuer), or give --port or --data',
    );
  return running;
};

await runCommand(USAGE, async (argv) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      sub: { type: 'string' },
      delegate: { type: 'boolean', default: false },
      expires: { type: 'string', default: '1h' },
      port: { type: 'string' },
      data: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.sub?.trim()) throw new UsageError('--sub is required: the subject the token names');
  if (values.port !== undefined && values.data !== undefined)
    throw new UsageError('Give --port or --data, not both');
  const issuer = await issuerFor(values);
  let token: string;
  try {
    token = await signToken(issuer, {
      subject: values.sub,
      delegate: values.delegate,
      expires: values.expires,
    });
  } catch (error) {
    if (error instanceof TypeError && /time period/i.test(error.message))
      throw new UsageError(`--expires takes a time span such as 1h or 15m, not ${values.expires}`);
    throw error;
  }
  console.log(token);
  return 0;
});
