import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// The UI is served by `agentlane serve` at `/`, so asset URLs are relative to the site root.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  // The workspace packages' TypeScript sources (their `agentlane-source` export), not their dist builds.
  resolve: { conditions: ['agentlane-source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:4317' },
  },
});
