import { defineRoutes } from './route.js';

export const migrationRoutes = defineRoutes();
