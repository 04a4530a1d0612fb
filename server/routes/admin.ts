import { defineRoutes } from './route.js';

export const adminRoutes = defineRoutes();
