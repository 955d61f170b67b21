#!/usr/bin/env python3
"""Servers on lawn_rt and on tokio, driven by clients nobody here wrote.

Run through scripts/server_bench.sh, which installs the clients and builds
the servers; this file only measures. Each run starts one server in a
process of its own, waits for its port, drives it with the client, reads
the server's figures from /proc and stops it. The two runtimes alternate
(A B A B ...), and every figure is the median of its rounds.

Per run: requests/s, p50 and p99 as the client reports them; the server's
CPU seconds over all its threads and its voluntary context switches over
all its threads, both counted over the client's run only; the server's
peak RSS (VmHWM). Then, for the HTTP server, the RSS each idle keep-alive
connection holds. Ratios are lawn_rt / tokio: below 1 lawn_rt used less,
except requests/s, where above 1 lawn_rt served more. Under each load,
what the lawn_rt server's timers did in its last round, as it reports it
on stopping (`RuntimeMetrics::timer_metrics`; hyper_server only).

With `--before-hyper-server` (and `--before-redis`), an earlier lawn_rt
build of the same servers runs as a third side, `before`, alternated with
the other two: a change's effect and both sides against tokio in one run.
"""

import argparse
import os
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def proc_cpu(pid):
    """utime + stime of the whole process (every thread, live or ended), s."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_switches(pid):
    """Voluntary context switches summed over the process's threads."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return total


def proc_status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {key} for {pid}")


def wait_for_port(port, proc, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server not listening on {port} after {timeout} s")


class Server:
    """One server process: started, measured, stopped."""

    def __init__(self, argv, port):
        self.port = port
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.timers = None
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=self.stderr
        )
        wait_for_port(port, self.proc)
        time.sleep(0.2)

    def mark(self):
        return proc_cpu(self.proc.pid), proc_switches(self.proc.pid)

    def peak_rss_kb(self):
        return proc_status_kb(self.proc.pid, "VmHWM")

    def rss_kb(self):
        return proc_status_kb(self.proc.pid, "VmRSS")

    def stop(self):
        # SIGINT first: hyper_server then reports its timers on stderr.
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.stderr.seek(0)
        lines = [l for l in self.stderr.read().splitlines() if l.startswith("lawn_rt timers:")]
        self.timers = lines[-1] if lines else None
        self.stderr.close()


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not m:
        raise ValueError(f"latency `{text}`")
    return float(m.group(1)) * UNITS[m.group(2)]


def run_wrk(port, conns, secs, threads):
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{conns}", f"-d{secs}s", "--latency",
         f"http://127.0.0.1:{port}/"],
        capture_output=True, text=True, check=True,
    ).stdout
    pct = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))
    if "50" not in pct or "99" not in pct:
        sys.exit(f"server_bench: wrk gave no latency distribution (every request failed?):\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Socket errors: (.*)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": rps,
        "p50": ms(pct["50"]),
        "p99": ms(pct["99"]),
        "requests": rps * secs,
        "note": (errors.group(1) if errors else "")
        + (f" non-2xx {non2xx.group(1)}" if non2xx else ""),
    }


def run_redis(port, conns, requests, test):
    out = subprocess.run(
        ["redis-benchmark", "-p", str(port), "-t", test, "-c", str(conns),
         "-n", str(requests), "--csv"],
        capture_output=True, text=True, check=True,
    ).stdout
    rows = [line.replace('"', "").split(",") for line in out.strip().splitlines()]
    header, row = rows[0], rows[1]
    got = dict(zip(header, row))
    return {
        "rps": float(got["rps"]),
        "p50": float(got["p50_latency_ms"]),
        "p99": float(got["p99_latency_ms"]),
        "requests": requests,
        "note": "",
    }


def idle_connections(port, count):
    """Opens `count` keep-alive connections, one request each, and keeps them."""
    conns = []
    request = b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        got = b""
        while b"\r\n\r\n" not in got or not got.endswith(b"hello\n"):
            chunk = s.recv(4096)
            if not chunk:
                raise RuntimeError("server closed a keep-alive connection")
            got += chunk
        conns.append(s)
    return conns


def measure_load(server_argv, port, client):
    server = Server(server_argv, port)
    try:
        cpu0, sw0 = server.mark()
        got = client()
        cpu1, sw1 = server.mark()
        got["cpu"] = cpu1 - cpu0
        got["cpu_us_per_req"] = got["cpu"] / got["requests"] * 1e6
        got["switches"] = sw1 - sw0
        got["peak_mb"] = server.peak_rss_kb() / 1024
    finally:
        server.stop()
    got["timers"] = server.timers
    return got


def measure_idle(server_argv, port, count):
    server = Server(server_argv, port)
    try:
        idle_connections(port, 10)  # the first connections' one-off growth
        time.sleep(0.3)
        before = server.rss_kb()
        conns = idle_connections(port, count)
        time.sleep(0.5)
        after = server.rss_kb()
        for c in conns:
            c.close()
        return {"kb_per_conn": (after - before) / count}
    finally:
        server.stop()


FIGURES = [
    ("rps", "req/s", "{:,.0f}"),
    ("p50", "p50 ms", "{:.3f}"),
    ("p99", "p99 ms", "{:.3f}"),
    ("cpu", "CPU s", "{:.2f}"),
    ("cpu_us_per_req", "CPU µs/req", "{:.2f}"),
    ("switches", "vol. switches", "{:,.0f}"),
    ("peak_mb", "peak RSS MB", "{:.1f}"),
    ("kb_per_conn", "KB per idle conn", "{:.2f}"),
]


def report(title, results):
    """results: {runtime: [dict per round]}"""
    keys = [k for k, _, _ in FIGURES if k in results["lawn_rt"][0]]
    med = {
        rt: {k: statistics.median(r[k] for r in rounds) for k in keys}
        for rt, rounds in results.items()
    }
    print(f"\n### {title} (medians of {len(results['lawn_rt'])} rounds)\n")
    names = [name for k, name, _ in FIGURES if k in keys]
    print("| runtime | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    sides = [rt for rt in ("before", "lawn_rt", "tokio") if rt in results]
    for rt in sides:
        cells = [fmt.format(med[rt][k]) for k, _, fmt in FIGURES if k in keys]
        print(f"| {rt} | " + " | ".join(cells) + " |")
    for rt in [rt for rt in sides if rt != "tokio"]:
        ratios = []
        for k in keys:
            tokio = med["tokio"][k]
            ratios.append(f"{med[rt][k] / tokio:.2f}x" if tokio else "-")
        name = "ratio" if len(sides) == 2 else f"{rt} / tokio"
        print(f"| {name} | " + " | ".join(ratios) + " |")
    timers = [r["timers"] for r in results["lawn_rt"] if r.get("timers")]
    if timers:
        print(f"\n{timers[-1]}")
    for rt, rounds in results.items():
        for i, r in enumerate(rounds):
            if r.get("note", "").strip():
                print(f"\n{rt}, round {i + 1}: the client reported {r['note'].strip()}")
    sys.stdout.flush()


def alternate(rounds, runtimes, run):
    results = {rt: [] for rt in runtimes}
    for i in range(rounds):
        order = runtimes if i % 2 == 0 else list(reversed(runtimes))
        for rt in order:
            results[rt].append(run(rt))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hyper-server", required=True, help="examples/hyper_server binary")
    ap.add_argument("--redis-lawn-rt", help="mini-redis-server built on lawn_rt")
    ap.add_argument("--redis-tokio", help="mini-redis-server as published")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=int, default=5, help="each wrk run's length")
    ap.add_argument("--redis-requests", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", choices=["hyper", "hyper5000", "idle", "redis"], action="append")
    ap.add_argument("--before-hyper-server", help="an earlier build of examples/hyper_server")
    ap.add_argument("--before-redis", help="an earlier build of the lawn_rt mini-redis-server")
    args = ap.parse_args()
    only = set(args.only or ["hyper", "hyper5000", "idle", "redis"])
    runtimes = ["lawn_rt", "tokio"]
    if args.before_hyper_server or args.before_redis:
        runtimes = ["before", "lawn_rt", "tokio"]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 20_000 if hard == resource.RLIM_INFINITY else min(hard, 20_000)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    port = 18_080

    def hyper(rt):
        if rt == "before":
            if not args.before_hyper_server:
                sys.exit("server_bench: --before-hyper-server names the earlier hyper_server")
            binary, rt = args.before_hyper_server, "lawn_rt"
        else:
            binary = args.hyper_server
        return [binary, "--runtime", rt, "--workers", str(args.workers),
                "--addr", f"127.0.0.1:{port}"]

    print(f"server_bench: {args.rounds} rounds, runtimes alternating; "
          f"{os.cpu_count()} CPUs, {args.workers} workers per server")
    if "hyper" in only:
        report("hyper_server, `wrk -t1 -c50 --latency`",
               alternate(args.rounds, runtimes,
                         lambda rt: measure_load(hyper(rt), port,
                                                 lambda: run_wrk(port, 50, args.secs, 1))))
    if "hyper5000" in only:
        report("hyper_server, `wrk -t2 -c5000 --latency`",
               alternate(args.rounds, runtimes,
                         lambda rt: measure_load(hyper(rt), port,
                                                 lambda: run_wrk(port, 5000, args.secs + 1, 2))))
    if "idle" in only:
        for count in (4000, 8000):
            report(f"hyper_server, {count} idle keep-alive connections (one request each)",
                   alternate(args.rounds, runtimes,
                             lambda rt: measure_idle(hyper(rt), port, count)))
    if "redis" in only:
        if not (args.redis_lawn_rt and args.redis_tokio):
            sys.exit("server_bench: --redis-lawn-rt and --redis-tokio name the mini-redis servers")
        servers = {"lawn_rt": args.redis_lawn_rt, "tokio": args.redis_tokio,
                   "before": args.before_redis}
        if "before" in runtimes and not args.before_redis:
            sys.exit("server_bench: --before-redis names the earlier mini-redis-server")
        for test in ("set", "get"):
            report(f"mini-redis 0.4.1, `redis-benchmark -t {test} -c 50 -n {args.redis_requests}`",
                   alternate(args.rounds, runtimes,
                             lambda rt: measure_load([servers[rt], "--port", str(port)], port,
                                                     lambda: run_redis(port, 50, args.redis_requests,
                                                                       test))))


if __name__ == "__main__":
    main()
