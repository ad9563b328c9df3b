import { serve } from 'actorkit/bun';
import { createApp } from './app.js';

await serve(createApp);
