// Runs the hello actor on Deno: `PORT` (default 8080), graceful shutdown on SIGTERM/SIGINT.
import { serve } from 'actorkit/deno';
import { createHelloActor } from './app.js';

await serve(createHelloActor());
