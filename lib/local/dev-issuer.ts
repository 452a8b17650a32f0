/**
 * The local development issuer (issue #53 step 5): with `REQUESTER_BINDING=on` and no `JWT_ISSUER`,
 * `npm start` issues its own tokens, so requester binding can be tried with one command. Its ES256 key
 * pair is made with jose at the first start; with `--data DIR` it is kept in `DIR/dev-issuer.json` and
 * used again (a token outlives a restart on the same port), else it lives as long as the process. The
 * local server publishes its OpenID configuration and JWKS at `{server}/dev-issuer` on loopback, and
 * the JWT authorizer finds the keys there as it finds a real issuer's. `npm run token` (token.ts) signs
 * tokens with the key it reads from the file this module writes for the server's port, in a folder
 * of the user's own under the OS temp dir; nothing is served that mints a token.
 *
 * For this machine only: the server binds to 127.0.0.1, and the key sits in files only the user can
 * read. Deployed, tokens come from a real issuer (API Gateway's JWT authorizer); nothing here is
 * bundled into a function.
 */
import { lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { DELEGATE_SCOPE } from '../domain/principal';
import type { JwtSettings } from './jwt-authorizer';

/** The issuer's path on the local server: its `iss` is `{server}/dev-issuer`. */
export const DEV_ISSUER_PATH = '/dev-issuer';

/** What the issuer's files hold: enough to sign a token the server accepts. */
export interface IssuerFile {
  issuer: string;
  audience: string;
  kid: string;
  /** The private key, as a JWK (ES256). */
  privateJwk: JWK;
}

const ALG = 'ES256';
const KEY_FILE = 'dev-issuer.json';

/** The key's file in a `--data` folder. */
export const dataIssuerFile = (dataDir: string) => join(dataDir, KEY_FILE);

/** The folder of the user's own under the OS temp dir where a running server leaves its issuer file. */
export const runtimeDir = () =>
  join(tmpdir(), `authority-person-service-${process.getuid?.() ?? userInfo().username}`);

/** The issuer file of the server listening on `port`, while it runs. */
export const portIssuerFile = (port: number) => join(runtimeDir(), `dev-issuer-${port}.json`);

/**
 * Makes the runtime folder, or checks the one there is: a folder (no link) of this user's that no one
 * else may read or enter, so that no other local user can read the key or plant a file of their own.
 */
const privateRuntimeDir = async () => {
  const dir = runtimeDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const found = await lstat(dir);
  const uid = process.getuid?.();
  const mine = uid === undefined || found.uid === uid;
  if (!found.isDirectory() || !mine || (process.platform !== 'win32' && (found.mode & 0o077) !== 0))
    throw new Error(`${dir} must be a folder of this user's that only this user may read`);
  return dir;
};

/** Writes an issuer file readable by this user only. */
const writeIssuerFile = (path: string, file: IssuerFile) =>
  writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });

/** Reads an issuer file; undefined when there is none. */
export const readIssuerFile = async (path: string): Promise<IssuerFile | undefined> => {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as IssuerFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** The public half of a private JWK (an EC key: its `d` left out). */
const publicOf = ({ kty, crv, x, y }: JWK): JWK => ({ kty, crv, x, y });

/** The key of `dataDir`'s file when it has one, else a new one (kept there when there is a folder). */
const keyOf = async (
  dataDir: string | undefined,
): Promise<{ kid: string; privateJwk: JWK; kept: boolean }> => {
  const saved = dataDir ? await readIssuerFile(dataIssuerFile(dataDir)) : undefined;
  if (saved) return { kid: saved.kid, privateJwk: saved.privateJwk, kept: true };
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  return { kid: await calculateJwkThumbprint(publicOf(privateJwk)), privateJwk, kept: false };
};

export interface DevIssuer {
  /** `iss` of its tokens: `{server}/dev-issuer`. */
  issuer: string;
  audience: string;
  /** What the authorizer checks tokens against: this issuer, found by its OpenID configuration. */
  settings: JwtSettings;
  /** The issuer's OpenID configuration and JWKS, each at its path; undefined for any other path. */
  document(path: string): object | undefined;
  /** Where the key is kept, for the banner. */
  keptIn: string;
  /** The command that prints a token for this server. */
  tokenCommand: string;
  /** Removes the file left for the token command (the key in a `--data` folder stays). */
  stop(): Promise<void>;
}

/** The default port of `npm start` and `npm run token`. */
export const DEFAULT_PORT = 3000;

/**
 * Starts the issuer of the server at `serverUrl` (listening on `port`): its key loaded or made, and
 * written where `npm run token` finds it.
 */
export const startDevIssuer = async ({
  serverUrl,
  port,
  audience,
  dataDir,
}: {
  serverUrl: string;
  port: number;
  audience: string;
  dataDir?: string;
}): Promise<DevIssuer> => {
  const issuer = `${serverUrl}${DEV_ISSUER_PATH}`;
  const { kid, privateJwk, kept } = await keyOf(dataDir);
  const file: IssuerFile = { issuer, audience, kid, privateJwk };
  if (dataDir) {
    await mkdir(dataDir, { recursive: true });
    await writeIssuerFile(dataIssuerFile(dataDir), file);
  }
  const portFile = portIssuerFile(port);
  await privateRuntimeDir();
  await writeIssuerFile(portFile, file);
  const documents: Record<string, object> = {
    [`${DEV_ISSUER_PATH}/.well-known/openid-configuration`]: {
      issuer,
      jwks_uri: `${issuer}/jwks.json`,
      id_token_signing_alg_values_supported: [ALG],
    },
    [`${DEV_ISSUER_PATH}/jwks.json`]: { keys: [{ ...publicOf(privateJwk), kid, alg: ALG, use: 'sig' }] },
  };
  return {
    issuer,
    audience,
    settings: { issuer, audience },
    document: (path) => documents[path],
    keptIn: dataDir
      ? `${dataIssuerFile(dataDir)}${kept ? '' : ' (new)'}, kept across restarts`
      : 'memory, a new one at each start',
    tokenCommand: `npm run -s token -- --sub alice${port === DEFAULT_PORT ? '' : ` --port ${port}`}`,
    stop: () => rm(portFile, { force: true }),
  };
};

export interface TokenRequest {
  subject: string;
  delegate?: boolean;
  /** jose's time span from now (`1h`, `15m`; `-1m` for one expired already). */
  expires?: string;
}

/** A token of the issuer a file describes: ES256, its `kid`, `iss`, `aud`, `sub`, `iat`, `exp`. */
export const signToken = async (
  { issuer, audience, kid, privateJwk }: IssuerFile,
  { subject, delegate = false, expires = '1h' }: TokenRequest,
): Promise<string> =>
  new SignJWT((delegate ? { scope: DELEGATE_SCOPE } : {}) as JWTPayload)
    .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(await importJWK(privateJwk, ALG));
