/** HTTP settings a container reads once from its environment (API.md 1 and 2). */
export interface HttpConfig {
  /** Overrides the scheme, host and stage that absolute URLs are built from. */
  publicBaseUrl?: string;
  /** Overrides `@context` (default `{base}/context.jsonld`). */
  schemaContextUrl?: string;
}

export const httpConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): HttpConfig => ({
  ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, '') } : {}),
  ...(env.SCHEMA_CONTEXT_URL ? { schemaContextUrl: env.SCHEMA_CONTEXT_URL } : {}),
});
