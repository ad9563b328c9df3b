import { serve } from 'actorkit/node';
import { createApp } from './app.js';

await serve(createApp);
