import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The browser UI. Built into web/dist, which the chat API serves at `/`; `vite dev` proxies the API. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: path.join(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: { '/api': process.env.PROCURA_API_URL ?? 'http://127.0.0.1:3000' },
  },
});
