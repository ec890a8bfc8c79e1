#!/usr/bin/env node
// Procura runs its TypeScript sources directly: tsx compiles them on load (esbuild, cached).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
