/**
 * The options every command-line tool of the API shares: which API (`--api`, `npm start`'s by
 * default) and how to authenticate to it. A deployed API is signed with SigV4 unless a JWT is given
 * (`--token`), as the stack's IAM and JWT authorizers expect; a loopback API is not, unless `--sigv4`.
 */
import { type ApiClient, apiClient, localApi } from './api-client';
import { CommandError, UsageError } from './command';
import { regionOfApi, sigV4Signer } from './sigv4';

export const API_OPTIONS = {
  api: { type: 'string' },
  token: { type: 'string' },
  sigv4: { type: 'boolean', default: false },
  region: { type: 'string' },
} as const;

export interface ApiFlags {
  api?: string;
  token?: string;
  sigv4?: boolean;
  region?: string;
}

/** The run cannot start: the API does not answer, or does not let this caller in. */
export class ApiUnusable extends CommandError {}

const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/** The API's root URL the flags name. */
export const apiOf = (flags: ApiFlags) => flags.api ?? localApi();

export const clientFromFlags = (flags: ApiFlags, env: NodeJS.ProcessEnv = process.env): ApiClient => {
  const api = apiOf(flags);
  let url: URL;
  try {
    url = new URL(api);
  } catch {
    throw new UsageError(`--api ${api} is not a URL`);
  }
  if (flags.token !== undefined && flags.sigv4)
    throw new UsageError('--token and --sigv4 exclude each other');
  const signing = flags.sigv4 || (flags.token === undefined && !isLoopback(url));
  if (!signing) return apiClient({ api, ...(flags.token === undefined ? {} : { token: flags.token }) });
  const region = flags.region ?? regionOfApi(url) ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new UsageError(`SigV4 needs a region: --region, or AWS_REGION, for ${api}`);
  return apiClient({ api, signer: sigV4Signer({ region }) });
};

/**
 * Checks, before a run starts, that the API answers and lets this caller in: one `GET /Person?limit=0`
 * (the count alone), so a wrong URL or missing credentials end the run at once with a clear message
 * instead of after the client's patience.
 */
export const checkApi = async (client: ApiClient, api: string) => {
  let status: number;
  try {
    ({ status } = await client.send({ method: 'GET', path: '/Person?limit=0' }, { patienceMs: 0 }));
  } catch (error) {
    throw new ApiUnusable(
      `Cannot reach the API at ${api}: ${(error as Error).cause ?? (error as Error).message}`,
    );
  }
  if (status === 401 || status === 403)
    throw new ApiUnusable(
      `The API at ${api} refused the credentials (${status}): --token, or AWS credentials`,
    );
  if (status !== 200) throw new ApiUnusable(`The API at ${api} answered GET /Person with ${status}`);
};
