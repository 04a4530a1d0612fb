import { defineRoutes } from './route.js';

export const pagesRoutes = defineRoutes();
