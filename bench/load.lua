-- wrk script for bench/load.sh: at the end, one machine-readable line with the exact figures
-- (latencies in microseconds, from wrk's own histogram) so nothing is parsed from "1.23ms".
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'LOAD_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,"non_2xx_3xx":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean))
end
