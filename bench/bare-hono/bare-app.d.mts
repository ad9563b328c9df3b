import type { Hono } from 'hono';

/** The bare Hono app of the bench (bare-app.mjs): `shaped` (default) answers an invoke of the actor's shape, `echo` the parsed request. */
export function createBareApp(invoke?: 'shaped' | 'echo'): Hono;
