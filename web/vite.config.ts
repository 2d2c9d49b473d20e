// Builds web/ into web/dist, which the Hub serves at / (src/http/dashboard-routes.ts).
// Hashed names under /assets let the Hub cache them for a year; nothing is fetched from a CDN.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false, target: 'es2022' },
  logLevel: 'warn',
});
