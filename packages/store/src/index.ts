export * from './open-store';
export * from './postgres/create-postgres-store';
export * from './sqlite/create-sqlite-store';
export * from './store';
