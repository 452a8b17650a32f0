/**
 * SigV4 signing of API requests for a deployed API with IAM auth: the AWS SDK's signer, with
 * credentials from the default provider chain (environment, shared config and SSO, container and
 * instance roles), as the AWS CLI finds them.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** Signs a request: its headers in, the headers to send (with `authorization`, `x-amz-date`) out. */
export type RequestSigner = (
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
) => Promise<Record<string, string>>;

/** The region of an execute-api URL (`https://{id}.execute-api.{region}.amazonaws.com`). */
export const regionOfApi = (url: URL): string | undefined =>
  /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1];

export const sigV4Signer = ({
  region,
  credentials = defaultProvider(),
}: {
  region: string;
  credentials?: ReturnType<typeof defaultProvider>;
}): RequestSigner => {
  const signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: Sha256 });
  return async (method, url, headers, body) => {
    const signed = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...headers, host: url.host },
      ...(body === undefined ? {} : { body }),
    });
    return signed.headers as Record<string, string>;
  };
};
