import { defineRoutes } from './route.js';

export const keysRoutes = defineRoutes();
