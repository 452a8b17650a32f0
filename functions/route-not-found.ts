import { routeNotFoundHandler } from '../lib/http/fallback-handler';

/** Every request no route matches: 404, or 405 with `Allow` */
export const handler = routeNotFoundHandler();
