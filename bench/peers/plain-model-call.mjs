// The floor the actor's model call is held to (issue 43): the CPU one plain `fetch` of an
// OpenAI-compatible chat completion costs its caller, with a request body of the size the actor
// sent and the answer read with `response.json()`, as a user would write it — no SDK, no retries,
// no stream. Calls the mock model at `concurrency` in flight after a warm-up, and prints
// `{"cpuUsPerCall": …, "calls": …}`; the call's CPU is `process.cpuUsage()` over the measured calls.
//
// Run: node bench/peers/plain-model-call.mjs <base URL of the mock, …/v1> <request bytes> [calls, 4000] [concurrency, 32]
const [baseUrl, bytesText, callsText = '4000', concurrencyText = '32'] = process.argv.slice(2);
const requestBytes = Number(bytesText);
const calls = Number(callsText);
const concurrency = Number(concurrencyText);
if (!baseUrl || !Number.isSafeInteger(requestBytes) || requestBytes < 64 || !(calls > 0) || !(concurrency > 0)) {
  console.error('usage: plain-model-call.mjs <base URL …/v1> <request bytes ≥ 64> [calls] [concurrency]');
  process.exit(2);
}

/** A conversation whose JSON body is exactly `bytes` long: one user message padded to size. */
function conversationOf(bytes) {
  const empty = { model: 'mock-model', messages: [{ role: 'user', content: '' }] };
  return { ...empty, messages: [{ role: 'user', content: 'x'.repeat(bytes - JSON.stringify(empty).length) }] };
}

const conversation = conversationOf(requestBytes);

async function call() {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(conversation),
  });
  const answer = await response.json();
  if (!response.ok || typeof answer.choices?.[0]?.message?.content !== 'string') throw new Error(`the mock answered ${response.status}`);
}

async function callMany(count) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await call();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

await callMany(Math.ceil(calls / 4));
const before = process.cpuUsage();
await callMany(calls);
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuUsPerCall: Math.round((used.user + used.system) / calls), calls }));
