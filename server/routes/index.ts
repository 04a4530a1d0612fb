import { adminRoutes } from './admin.js';
import { calculateRoutes } from './calculate.js';
import { discoveryRoutes } from './discovery.js';
import { keysRoutes } from './keys.js';
import { migrationRoutes } from './migration.js';
import { pagesRoutes } from './pages.js';
import { parityRoutes } from './parity.js';
import { publicRoutes } from './public.js';
import type { RouteDef } from './route.js';
import { ruleRoutes } from './rules.js';

/** Every route of the API, in the order the OpenAPI document lists them. */
export const ALL_ROUTES: RouteDef[] = [
  ...publicRoutes,
  ...pagesRoutes,
  ...keysRoutes,
  ...discoveryRoutes,
  ...ruleRoutes,
  ...calculateRoutes,
  ...parityRoutes,
  ...adminRoutes,
  ...migrationRoutes,
];
