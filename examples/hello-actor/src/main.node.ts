// Runs the hello actor on Node: `PORT` (default 8080), graceful shutdown on SIGTERM/SIGINT.
import { serve } from 'actorkit/node';
import { createHelloActor } from './app.js';

await serve(createHelloActor());
