import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_FOLLOWED_EVENTS } from '../../cli/dev/watched-actor.js';
import { isLogEvent, LOG_EVENTS } from './log-events.js';
import { withLogEventsTable } from './log-events-table.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** Names the docs mention as events no version logs any more: reliability.md tells the fault that removed them. */
const RETIRED_EVENTS = new Set(['mcp_sessions_full']);

const NAME = '`([a-z][a-z0-9_]*)`';
/** How the docs say a name is a log event: "logs `x`", "logged (once per call) as `x`", "is logged (`x`)", "the warning `x`", "`x` log line", "`x` `{fields}`", a JSON line. */
const NAMED_AS_EVENT = [
  new RegExp(`\\blog(?:s|ged|ged as| line)? ${NAME}`, 'g'),
  new RegExp(`\\blogged(?: [a-z]+){0,3} as ${NAME}`, 'g'),
  new RegExp(`\\blogged \\(${NAME}\\)`, 'g'),
  new RegExp(`\\bwarning ${NAME}`, 'g'),
  new RegExp(`${NAME} (?:log line|line at|warning|in its log|is logged|logged)\\b`, 'g'),
  new RegExp(`${NAME} \`\\{`, 'g'),
  /"event": ?"([a-z][a-z0-9_]*)"/g,
];
/** "is logged (`warn`)" names a level. */
const LEVELS = new Set(['debug', 'info', 'warn', 'error']);
/** "log events (`a`, `b`, …)", "log lines (`a`, `b`)". */
const NAMED_AS_EVENT_LIST = /\blog (?:events|lines) \(((?:`[a-z0-9_]+`,? ?)+)\)/g;

/** The event names a Markdown text names as logged, by the phrasings above. */
function eventsNamedIn(markdown: string): string[] {
  const text = markdown.replace(/\s+/g, ' ');
  const names = NAMED_AS_EVENT.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
  for (const list of text.matchAll(NAMED_AS_EVENT_LIST))
    names.push(...[...list[1]!.matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1]!));
  return names.filter((name) => !LEVELS.has(name));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(new URL(dir, root), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => join(dir, file));
}

describe('LOG_EVENTS', () => {
  it('is what docs/logs.md shows (`npm run docs:logs` writes it)', () => {
    const doc = read('docs/logs.md');
    expect(withLogEventsTable(doc, DEV_FOLLOWED_EVENTS), 'docs/logs.md is stale: run `npm run docs:logs`').toBe(doc);
  });

  it('holds every event README.md and docs/*.md name as logged', () => {
    // A CLI verb's `--json` object names itself with `event` too (`{"event": "platform_ready", …}`, written by the
    // platform's entry): not a log line.
    const cliJsonEvents = new Set(
      [...sourceFiles('cli/'), ...sourceFiles('platform/')].flatMap((file) =>
        [...read(file).matchAll(/\bevent: '([a-z][a-z0-9_]*)'/g)].map((match) => match[1]!),
      ),
    );
    const docs = [
      'README.md',
      ...readdirSync(new URL('docs/', root))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
    ];
    const unknown = docs.flatMap((file) =>
      eventsNamedIn(read(file))
        .filter((name) => !isLogEvent(name) && !RETIRED_EVENTS.has(name) && !cliJsonEvents.has(name))
        .map((name) => `${file}: \`${name}\``),
    );
    expect(
      unknown,
      'the docs name events the runtime does not log (renamed? add them to LOG_EVENTS or fix the docs)',
    ).toEqual([]);
    expect(eventsNamedIn(read('docs/runtimes.md'))).toEqual(
      expect.arrayContaining(['actor_listening', 'actor_shutdown_started', 'actor_server_closed']),
    );
  });

  it('lists only events src/ or cli/ log', () => {
    const code = [...sourceFiles('src/'), ...sourceFiles('cli/')]
      .filter((file) => !file.endsWith('log-events.ts'))
      .map((file) => read(file))
      .join('\n');
    const unused = Object.keys(LOG_EVENTS).filter((name) => !code.includes(`'${name}'`));
    expect(unused).toEqual([]);
  });

  it('tells a line of another program from the runtime’s own', () => {
    expect(['actor_listening', 'weather_client_initialized', 'git_hub_api_client_initialized'].every(isLogEvent)).toBe(
      true,
    );
    expect(['actor_listenin', 'dev_started', '_client_initialized', 'constructor', 'toString'].some(isLogEvent)).toBe(
      false,
    );
  });
});
