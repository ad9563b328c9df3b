import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { fakeOpenAIForThisFile, textChunks } from './fake-openai-server.js';
import { readUiStream } from './ui-stream-reader.js';

const server = await fakeOpenAIForThisFile();

const llmEnv = {
  LLM_BASE_URL: server.baseUrl,
  LLM_MODEL: 'fake-model',
  LLM_API_KEY: 'sk-test',
  LLM_MAX_RETRIES: '0',
  LLM_TIMEOUT_MS: '2000',
};
const post = (payload: Record<string, unknown>) =>
  new Request('http://actor/agent/invoke', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_identifier: 'u-1', session_id: 'files', ...payload }),
  });

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const pngByData = { name: 'dot.png', mime_type: 'image/png', data: PNG_BASE64 };
const jpegByUrl = { name: 'cat.jpg', mime_type: 'image/jpeg', url: 'https://images.example/cat.jpg' };
const notes = {
  name: 'notes.md',
  mime_type: 'text/markdown',
  data: Buffer.from('# Notes\nBuy milk.', 'utf8').toString('base64'),
};

describe('attachments on POST /agent/invoke', () => {
  it('sends images (by data and by url) as image parts and a text file as a text part, JSON and streamed', async () => {
    const store = new MemoryStore();
    const app = await createTestActor({ env: llmEnv, store });
    const reply = await app.request(post({ message: 'What is in these?', attachments: [pngByData, jpegByUrl, notes] }));
    expect(reply.status).toBe(200);
    const userMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        { type: 'image_url', image_url: { url: 'https://images.example/cat.jpg' } },
        { type: 'text', text: 'Attached file notes.md:\n# Notes\nBuy milk.' },
      ],
    };
    expect(server.requests[0]!.body.messages).toEqual([userMessage]);

    server.reply({ kind: 'stream', chunks: textChunks(['A dot.']) });
    const streamed = await readUiStream(
      (
        await app.request(
          post({
            session_id: 'files-stream',
            message: 'What is in these?',
            attachments: [pngByData, jpegByUrl, notes],
            stream: true,
          }),
        )
      ).body!,
    );
    expect(streamed.text).toBe('A dot.');
    expect(server.requests[1]!.body.messages).toEqual([userMessage]);

    const [stored] = await store.loadHistory('default', 'files', 10);
    expect(stored).toMatchObject({
      role: 'user',
      content: 'What is in these?',
      data: {
        attachments: [
          { name: 'dot.png', mime_type: 'image/png' },
          { name: 'cat.jpg', mime_type: 'image/jpeg' },
          { name: 'notes.md', mime_type: 'text/markdown' },
        ],
      },
    });
    expect(JSON.stringify(stored)).not.toContain(PNG_BASE64);
  });

  it('answers 422 naming the attachment the model cannot take, and a text file by url, before any model call', async () => {
    const app = await createTestActor({ env: llmEnv });
    for (const stream of [false, true]) {
      const pdf = await app.request(
        post({
          message: 'Read this',
          stream,
          attachments: [pngByData, { name: 'report.pdf', mime_type: 'application/pdf', data: 'JVBERi0=' }],
        }),
      );
      expect(pdf.status).toBe(422);
      const problem = await pdf.json();
      expect(problem).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/attachments/1/mime_type' }] });
      expect(problem.errors[0].detail).toContain('application/pdf');
    }
    const byUrl = await app.request(
      post({
        message: 'Read this',
        attachments: [{ name: 'notes.txt', mime_type: 'text/plain', url: 'http://127.0.0.1:9/notes.txt' }],
      }),
    );
    expect(byUrl.status).toBe(422);
    expect(await byUrl.json()).toMatchObject({ errors: [{ pointer: '/attachments/0/url' }] });
    expect(server.requests).toEqual([]);
  });

  it('answers 422 to an attachment URL that is not https:, http: or data:image/, or that points at a link-local or metadata host, on the invoke and the UI chat bodies, before any model call', async () => {
    const app = await createTestActor({ env: llmEnv });
    const refusedUrls = [
      'file:///etc/passwd',
      'ftp://files.example/cat.png',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token',
      'http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/',
      'http://[fe80::1]/cat.png',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      // Not a URL `fetch` takes as written, or with credentials in it (#40: the documented pattern says so too).
      'HTTP://',
      'https://user:secret@example.com/cat.png',
      'http://xn--/cat.png',
      'http://example.com:65536/cat.png',
    ];
    for (const url of refusedUrls) {
      const invoke = await app.request(
        post({ message: 'Look', attachments: [{ name: 'cat.png', mime_type: 'image/png', url }] }),
      );
      expect(invoke.status, url).toBe(422);
      expect(await invoke.json(), url).toMatchObject({
        code: 'validation_failed',
        errors: [{ pointer: '/attachments/0/url' }],
      });
      const uiChat = await app.request(
        new Request('http://actor/agent/invoke', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            id: 'ui-files',
            messages: [
              {
                id: 'm1',
                role: 'user',
                parts: [
                  { type: 'text', text: 'Look' },
                  { type: 'file', mediaType: 'image/png', filename: 'cat.png', url },
                ],
              },
            ],
          }),
        }),
      );
      expect(uiChat.status, url).toBe(422);
      expect(await uiChat.json(), url).toMatchObject({
        code: 'validation_failed',
        errors: [{ pointer: '/messages/0/parts/1/url' }],
      });
    }
    expect(server.requests).toEqual([]);
    // The schemes that stay: https:, http: (an ordinary host) and data:image/ go on to the model.
    const allowed = await app.request(
      post({
        message: 'Look',
        attachments: [
          { name: 'a.png', mime_type: 'image/png', url: 'http://images.example/a.png' },
          { name: 'b.png', mime_type: 'image/png', url: `DATA:image/png;base64,${PNG_BASE64}` },
        ],
      }),
    );
    expect(allowed.status).toBe(200);
    expect(server.requests).toHaveLength(1);
  });

  it('the offline model says what it received, JSON and streamed', async () => {
    const app = await createTestActor({});
    const json = await (await app.request(post({ message: 'Look', attachments: [pngByData, notes] }))).json();
    expect(json.message.content).toContain('You attached 2 files: dot.png (image/png), notes.md (text/markdown).');
    const streamed = await readUiStream(
      (
        await app.request(
          post({ session_id: 'offline-stream', message: 'Look', attachments: [jpegByUrl], stream: true }),
        )
      ).body!,
    );
    expect(streamed.text).toContain('You attached 1 file: cat.jpg (image/jpeg).');
  });
});
