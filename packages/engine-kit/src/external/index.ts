export * from './external-driver';
export * from './external-frames';
export * from './external-translator';
