import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoForbiddenVerbs, findForbiddenVerbs, nameWords } from './assert-no-forbidden-verbs.js';

function actorSource(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'actorkit-verbs-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('assertNoForbiddenVerbs', () => {
  it('splits names into words', () => {
    expect(nameWords('deleteUserAccount')).toEqual(['delete', 'user', 'account']);
    expect(nameWords('weather_send_alert')).toEqual(['weather', 'send', 'alert']);
    expect(nameWords('HTTPDelete')).toEqual(['http', 'delete']);
  });

  it('passes a read-only actor', () => {
    const root = actorSource({
      'agent/tools/forecast.ts':
        "export const forecastTool = { name: 'weather_get_forecast' };\nexport function readForecast() {}\n",
    });
    expect(() => assertNoForbiddenVerbs(root, ['delete', 'send'])).not.toThrow();
  });

  it('fails on a forbidden tool name and a forbidden public callable, with file and line', () => {
    const root = actorSource({
      'agent/tools/mail.ts':
        "const x = 1;\nexport const mailTool = { name: 'weather_send_mail' };\nexport async function deleteAlert() {}\n",
    });
    expect(() => assertNoForbiddenVerbs(root, ['delete', 'send'])).toThrow(
      /agent\/tools\/mail\.ts:2 tool weather_send_mail \(verb "send"\)/,
    );
    const hits = findForbiddenVerbs(root, ['delete', 'send']);
    expect(hits.map((hit) => hit.name).sort()).toEqual(['deleteAlert', 'weather_send_mail']);
  });

  it('ignores private helpers, tests and words that merely contain a verb', () => {
    const root = actorSource({
      'agent/tools/ok.ts':
        "function deleteCache() {}\nexport const sender = { name: 'weather_sender_info' };\nexport function _sendInternal() {}\n",
      'agent/tools/ok.test.ts': 'export function deleteEverything() {}\n',
    });
    expect(findForbiddenVerbs(root, ['delete', 'send'])).toEqual([]);
  });

  it('scans only agent/tools by default and the domain module when asked', () => {
    const root = actorSource({
      'agent/tools/a.ts': "export const t = { name: 'weather_read' };\n",
      'weather/client.ts': 'export class WeatherClient {\n  async purgeStation(id: string) {\n  }\n}\n',
    });
    expect(() => assertNoForbiddenVerbs(root, ['purge'])).not.toThrow();
    expect(() => assertNoForbiddenVerbs(root, ['purge'], { scannedDirs: ['weather', 'agent/tools'] })).toThrow(
      /weather\/client\.ts:2 callable purgeStation/,
    );
  });

  it('fails loudly when the scanned folders hold no source', () => {
    const root = actorSource({ 'README.md': 'x' });
    expect(() => assertNoForbiddenVerbs(root, ['delete'])).toThrow(/No source files found/);
  });
});
