// Runs the hello actor on Bun: `PORT` (default 8080), graceful shutdown on SIGTERM/SIGINT.
import { serve } from 'actorkit/bun';
import { createHelloActor } from './app.js';

await serve(createHelloActor());
