import { type AssetSource, folderAssets } from '../lib/docs/assets';
import { docsAssetResponse, docsPageResponse } from '../lib/docs/serve';
import { readHandler } from '../lib/http/handler';
import { routePath } from '../lib/http/request';

/** GET /docs and GET /docs/{asset}: Swagger UI on this API's openapi.json, served from the package. */
export const buildHandler = ({ assets }: { assets: AssetSource }) =>
  readHandler().handler(async ({ event, links }) => {
    const asset = event.pathParameters?.asset;
    return asset === undefined
      ? docsPageResponse(routePath(event), links.baseUrl)
      : docsAssetResponse(asset, assets);
  });

export const handler = buildHandler({ assets: folderAssets() });
