import { describe, expect, it } from 'vitest';
import { parseMcpServers } from './mcp-server-config.js';

describe('parseMcpServers', () => {
  it('reads HTTP and stdio servers from JSON text or an object', () => {
    const text =
      '{"docs": {"url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer t"}}, "files": {"command": "node", "args": ["files.js"], "env": {"ROOT": "/tmp"}}}';
    const servers = parseMcpServers(text);
    expect(servers).toEqual({
      docs: { url: 'http://127.0.0.1:9000/mcp', headers: { Authorization: 'Bearer t' } },
      files: { command: 'node', args: ['files.js'], env: { ROOT: '/tmp' } },
    });
    expect(parseMcpServers(servers)).toEqual(servers);
  });

  it('treats nothing as no servers', () => {
    expect(parseMcpServers(undefined)).toEqual({});
    expect(parseMcpServers('  ')).toEqual({});
  });

  it.each([
    ['{"docs": ', /not valid JSON/],
    ['[]', /not a list/],
    ['"docs"', /invalid/],
    ['{"Docs": {"url": "http://x"}}', /snake_case/],
    ['{"docs": {"url": "not a url"}}', /docs/],
    ['{"docs": {"url": "http://x", "command": "node"}}', /docs/],
    ['{"files": {"command": ""}}', /files/],
    ['{"files": {"command": "node", "args": "a b"}}', /files/],
  ])('refuses %s', (text, message) => {
    expect(() => parseMcpServers(text)).toThrow(message);
  });
});
