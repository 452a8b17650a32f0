import { folderAssets } from '../lib/docs/assets';
import { getDocsHandler } from '../lib/http/self-description-handlers';

/** GET /docs and GET /docs/{asset} */
export const buildHandler = getDocsHandler;

export const handler = buildHandler({ assets: folderAssets() });
