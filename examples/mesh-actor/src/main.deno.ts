import { serve } from 'actorkit/deno';
import { createApp } from './app.js';

await serve(createApp);
