export * from './external-driver.js';
export * from './external-frames.js';
export * from './external-translator.js';
