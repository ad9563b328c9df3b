-- One bench cell for wrk (Debian `wrk`, LuaJIT): without arguments it repeats the request
-- of the command line (GET); with the argument `invoke` it POSTs a chat request per call
-- (`invoke-stream`: the same request asking for the streamed answer, `"stream":true`),
-- spread over 200 sessions of 50 users like real traffic (a second argument sets the number
-- of sessions, taken in turn: bench/scale.ts); with `mastra` it POSTs the same
-- turn in the body of Mastra's agent route (the session is the memory thread, the user its
-- resource). `done` prints the figures as one line, `WRK_RESULT {json}`, which
-- bench/load/run-wrk.ts parses.
local shape = nil
local sessions = 200
local turn = 0

function init(args)
  shape = args[1]
  sessions = tonumber(args[2]) or 200
end

function request()
  if shape ~= "invoke" and shape ~= "invoke-stream" and shape ~= "mastra" then
    return wrk.request()
  end
  turn = turn + 1
  local body
  if shape == "mastra" then
    body = string.format(
      '{"messages":[{"role":"user","content":"Hello from the bench, turn %d"}],"memory":{"thread":"bench-session-%d","resource":"bench-user-%d"}}',
      turn, turn % sessions, turn % 50)
  else
    body = string.format(
      '{"user_identifier":"bench-user-%d","session_id":"bench-session-%d","message":"Hello from the bench, turn %d"%s}',
      turn % 50, turn % sessions, turn, shape == "invoke-stream" and ',"stream":true' or '')
  end
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
