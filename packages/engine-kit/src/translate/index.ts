export * from './diagnostics';
export * from './guard';
export * from './harness';
export * from './narrow';
export * from './step';
export * from './turn';
export * from './with-audit';
