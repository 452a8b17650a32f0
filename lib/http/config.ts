/** HTTP settings a container reads once from its environment (API.md 1 and 2). */
export interface HttpConfig {
  /** Overrides the scheme, host and stage that absolute URLs are built from. */
  publicBaseUrl?: string;
  /** Overrides `@context` (default `{base}/context.jsonld`). */
  schemaContextUrl?: string;
  /** Requester binding (API.md 9.1): a write may name only the caller's own person. Off by default. */
  requesterBinding?: boolean;
  /** IAM principal ARNs that may write as any person while binding is on (the `delegates` option). */
  delegates?: string[];
}

export const httpConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): HttpConfig => ({
  ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, '') } : {}),
  ...(env.SCHEMA_CONTEXT_URL ? { schemaContextUrl: env.SCHEMA_CONTEXT_URL } : {}),
  ...(/^(on|true|1)$/i.test(env.REQUESTER_BINDING ?? '') ? { requesterBinding: true } : {}),
  ...(env.DELEGATES
    ? {
        delegates: env.DELEGATES.split(',')
          .map((arn) => arn.trim())
          .filter(Boolean),
      }
    : {}),
});
