import { servedOpenApi } from '../openapi.js';
import { adminRoutes } from './admin.js';
import { validationRoutes } from './admin-validation.js';
import { calculateRoutes } from './calculate.js';
import { discoveryRoutes } from './discovery.js';
import { keysRoutes } from './keys.js';
import { migrationRoutes } from './migration.js';
import { pagesRoutes } from './pages.js';
import { parityRoutes } from './parity.js';
import { publicRoutes } from './public.js';
import type { RouteDef } from './route.js';
import { ruleRoutes } from './rules.js';

// The document is generated from the list it is served in, so it is handed to its routes.
const openApi = servedOpenApi(() => ALL_ROUTES);

/** Every route of the API, in the order the OpenAPI document lists them. */
export const ALL_ROUTES: RouteDef[] = [
  ...publicRoutes(openApi),
  ...pagesRoutes(openApi),
  ...keysRoutes,
  ...discoveryRoutes,
  ...ruleRoutes,
  ...calculateRoutes,
  ...parityRoutes,
  ...adminRoutes,
  ...validationRoutes(openApi),
  ...migrationRoutes,
];
