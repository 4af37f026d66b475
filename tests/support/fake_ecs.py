#!/usr/bin/env python3
"""A stand-in for the ECS task metadata endpoint v4 that the deploy and browser tests start
beside real agents: GET <prefix> (this container), <prefix>/task and <prefix>/task/stats, with
every running container's counters rising as a live task's do (CPU at --cores each, network
steadily), `read`/`preread` one second apart. POST <prefix>/_documents with any of
{"task": {...}, "stats": {...}, "cores": {"name": x} or x} replaces the documents or the CPU
rates mid-test (a task going from idle to saturated, a container stopping); the counters go on
from where they were. Prints "port N" once listening.

  fake_ecs.py --task TASK.json --stats STATS.json [--prefix /v4/survey] [--cores 0.05]
"""
import argparse
import copy
import datetime
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def docker_time(seconds):
    whole = int(seconds)
    nanos = int(round((seconds - whole) * 1e9))
    stamp = datetime.datetime.fromtimestamp(whole, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return "%s.%09dZ" % (stamp, min(nanos, 999999999))


class Task:
    def __init__(self, task, stats, cores):
        self.lock = threading.Lock()
        self.used = {}  # DockerId -> CPU seconds used since the start
        self.at = self.started = time.time()
        self.set(task, stats, cores)

    def set(self, task=None, stats=None, cores=None):
        with self.lock:
            self.advance(time.time())
            if task is not None:
                self.task = task
                self.names = {c.get("DockerId"): c.get("Name") for c in task.get("Containers", [])}
            if stats is not None:
                self.stats = stats
            if cores is not None:
                self.cores = cores  # name -> cores, or a number for every container

    def advance(self, now):
        if hasattr(self, "stats"):
            for docker_id, entry in self.stats.items():
                if entry:
                    self.used[docker_id] = self.used.get(docker_id, 0) + self.rate_of(docker_id) * (now - self.at)
        self.at = now

    def rate_of(self, docker_id):
        if isinstance(self.cores, dict):
            return float(self.cores.get(self.names.get(docker_id), 0))
        return float(self.cores)

    def stats_now(self):
        with self.lock:
            now = time.time()
            self.advance(now)
            elapsed = now - self.started
            out = copy.deepcopy(self.stats)
            for docker_id, entry in out.items():
                if not entry:
                    continue
                rate = self.rate_of(docker_id)
                usage = entry.setdefault("cpu_stats", {}).setdefault("cpu_usage", {})
                total = int(usage.get("total_usage", 0)) + int(self.used.get(docker_id, 0) * 1e9)
                usage["total_usage"] = total
                pre = entry.setdefault("precpu_stats", {}).setdefault("cpu_usage", {})
                pre["total_usage"] = max(total - int(rate * 1e9), 1)
                entry["read"] = docker_time(now)
                entry["preread"] = docker_time(now - 1)
                for counters in (entry.get("networks") or {}).values():
                    counters["rx_bytes"] = int(counters.get("rx_bytes", 0)) + int(elapsed * 1000)
                    counters["tx_bytes"] = int(counters.get("tx_bytes", 0)) + int(elapsed * 500)
                    counters["rx_packets"] = int(counters.get("rx_packets", 0)) + int(elapsed)
                    counters["tx_packets"] = int(counters.get("tx_packets", 0)) + int(elapsed)
            return out


def handler_for(task, prefix):
    class Handler(BaseHTTPRequestHandler):
        def answer(self, document):
            body = json.dumps(document).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == prefix + "/task/stats":
                self.answer(task.stats_now())
            elif self.path == prefix + "/task":
                with task.lock:
                    self.answer(task.task)
            elif self.path == prefix:
                with task.lock:
                    containers = task.task.get("Containers", [])
                    self.answer(containers[-1] if containers else {})
            else:
                self.send_error(404)

        def do_POST(self):
            if self.path != prefix + "/_documents":
                self.send_error(404)
                return
            length = min(int(self.headers.get("Content-Length", 0)), 1 << 20)
            posted = json.loads(self.rfile.read(length))
            task.set(posted.get("task"), posted.get("stats"), posted.get("cores"))
            self.answer({"ok": True})

        def log_message(self, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--prefix", default="/v4/survey")
    parser.add_argument("--cores", type=float, default=0.05)
    parser.add_argument("--bind", default="127.0.0.1")
    args = parser.parse_args()
    with open(args.task) as task_file, open(args.stats) as stats_file:
        task = Task(json.load(task_file), json.load(stats_file), args.cores)
    server = ThreadingHTTPServer((args.bind, 0), handler_for(task, args.prefix))
    print("port %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
