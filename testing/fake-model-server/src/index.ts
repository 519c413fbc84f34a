export * from './scenarios';
export * from './server';
export * from './types';
