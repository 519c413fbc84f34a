export * from './open-store.js';
export * from './postgres/create-postgres-store.js';
export * from './sqlite/create-sqlite-store.js';
export * from './store.js';
