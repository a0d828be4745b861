-- wrk's request mix for Scripts/load-test.sh: 80 % GET /todos (the whole list, 100 todos),
-- 20 % PATCH /todos/:id ticking or unticking one of the 100 at random (a write each; the list
-- stays the same size, so every commit sends the WebSocket clients a list of the same length).
local todos = tonumber(os.getenv("LOAD_TODOS") or "100")
local writes = tonumber(os.getenv("LOAD_WRITE_SHARE") or "0.2")

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16))
end

function request()
  if math.random() < writes then
    local body = math.random() < 0.5 and '{"done":true}' or '{"done":false}'
    return wrk.format("PATCH", "/todos/" .. math.random(1, todos), { ["Content-Type"] = "application/json" }, body)
  end
  return wrk.format("GET", "/todos")
end

function done(summary, latency, requests)
  io.write(string.format("load: %d requests in %.1f s, %.0f requests/s, errors: %d connect, %d read, %d write, %d status, %d timeout\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
  io.write(string.format("load: latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
