#!/usr/bin/env python3
"""tokio's own integration tests, run against lawn_rt with only the crate
path renamed (`tokio::` -> `lawn_rt::`, as scripts/port_service.sh does
for a service): the test suites of the tokio version Cargo.lock tracks,
taken from cargo's registry copy.

    python3 scripts/tokio_suites.py                 # every selected file
    python3 scripts/tokio_suites.py tcp_stream rt_handle   # some files
    python3 scripts/tokio_suites.py --timeout 60
    python3 scripts/tokio_suites.py --ci            # CI's fixed subset

--ci runs the files in CI_FILES (a handful covering the areas fixed
for the suites: the io utilities' budget, the builder's panics, messages,
fs, the shutdown paths) under a 20 s timeout unless --timeout says
otherwise. Whatever files run, the exit status is 1 when a test in the
run is fail, hung or does-not-compile (neither pass nor deliberate), so
CI fails on a regression; 0 otherwise.

It builds them in target/tokio-suites (a crate of its own, so nothing of
it lands in the workspace), runs each file's binary under a timeout, and
prints each file's counts and each test that did not pass, with the
verdict: pass, deliberate (a documented difference, listed below with
its reason), fail, hung (no verdict before the timeout) or
does-not-compile (the whole file). The report is also written to
target/tokio-suites/report.md. Not part of `cargo test`.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "tokio-suites"

# The areas lawn_rt implements: net, io, fs, process, signal, task, rt.
SELECTED = re.compile(r"^(tcp_|udp|uds_|net_|io_|fs|process_|signal_|task_|rt_)")

# Files not run, and why.
SKIPPED = {
    r"windows": "Windows only",
    r"emscripten|wasm": "emscripten and wasm only",
    r"uring": "tokio's io_uring backend (unstable)",
    r"unstable|trace": "tokio_unstable features",
    r"named_pipe": "Windows named pipes",
    r"poll_aio": "FreeBSD POSIX AIO",
}

# The fixed subset `--ci` runs (.ci/run): every test in them passes or is
# deliberate, and they build in about a minute.
CI_FILES = [
    "io_sink", "io_util_empty", "io_repeat", "io_copy", "io_mem_stream", "io_panic",
    "rt_panic", "uds_socket", "process_change_of_runtime", "fs_file",
]

# Tests that fail for a deliberate difference, with the reason and where
# it is documented.
GUIDE = "docs/guide.md, 'Porting: what needs care'"
README = "README, 'Where it differs'"
DELIBERATE = {
    **{
        f"rt_common::{flavor}::coop": (
            "loops over lawn_rt::sync (tokio's mpsc), which counts tokio's "
            f"budget, not ours ({GUIDE}: other crates' leaf futures)"
        )
        for flavor in ("current_thread_scheduler", "threaded_scheduler_1_thread",
                       "threaded_scheduler_4_threads")
    },
    "rt_threaded::coop_and_block_in_place": (
        "loops over lawn_rt::sync (tokio's mpsc), which counts tokio's budget, "
        f"not ours ({GUIDE}: other crates' leaf futures)"
    ),
    "io_lines::lines_next_line_is_cancel_safe": (
        "tokio_test's io mock sleeps on tokio's own timer, which panics "
        f"inside a lawn_rt runtime ({GUIDE}: crates that sleep through tokio)"
    ),
    "task_blocking::useful_panic_message_when_dropping_rt_in_rt": (
        "dropping a runtime inside another's task blocks until its blocking "
        f"tasks end instead of panicking ({README})"
    ),
    "rt_handle_block_on::yield_in_block_in_place": (
        "Handle::block_on drives a current-thread runtime, so block_in_place "
        f"there panics as inside its Runtime::block_on ({GUIDE}: Handle::block_on)"
    ),
    "fs_try_exists::try_exists": (
        "checks PermissionDenied on a 0o244 directory, which root (this machine "
        f"and CI) may stat anyway; fails on tokio too ({GUIDE}: tokio's own tests)"
    ),
    "fs_file::file_debug_fmt": (
        "compares the first 33 bytes of the Debug output with a literal the "
        "rename lengthens ('tokio::' -> 'lawn_rt::'); ours starts "
        "'lawn_rt::fs::File { std: File { fd:' (tests/fs.rs)"
    ),
    "rt_threaded::test_tuning": (
        "waits to observe tokio's self-tuned shared-queue interval; lawn_rt's "
        f"is fixed (31 unless set), so it passes only by chance ({GUIDE}: "
        "the shared-queue interval)"
    ),
    "rt_worker_index::worker_index_handle_block_on_current_thread": (
        "Handle::block_on drives a current-thread runtime, so worker_index() "
        "is Some(0) there (docs/guide.md, 'Porting: what needs care')"
    ),
}

FEATURES = [
    "full", "rt", "rt-multi-thread", "net", "io-util", "io-std", "fs",
    "process", "signal", "sync", "time", "macros", "test-util",
    "parking_lot",
]


def tokio_source():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    )
    for package in meta["packages"]:
        if package["name"] == "tokio" and package["source"]:
            return package["version"], Path(package["manifest_path"]).parent
    sys.exit("tokio_suites: no tokio from the registry in Cargo.lock")


def skip_reason(name):
    for pattern, reason in SKIPPED.items():
        if re.search(pattern, name):
            return reason
    return None


def rename(text):
    return re.sub(r"\btokio::", "lawn_rt::", text)


def prepare(version, source, only):
    tests = WORK / "tests"
    if tests.exists():
        shutil.rmtree(tests)
    tests.mkdir(parents=True)
    support = source / "tests" / "support"
    if support.is_dir():
        for path in support.rglob("*.rs"):
            target = tests / "support" / path.relative_to(support)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(rename(path.read_text()))
    chosen, skipped = [], []
    for path in sorted((source / "tests").glob("*.rs")):
        name = path.stem
        if not SELECTED.match(name) or (only and name not in only):
            continue
        reason = skip_reason(name)
        if reason:
            skipped.append((name, reason))
            continue
        (tests / path.name).write_text(rename(path.read_text()))
        chosen.append(name)
    features = "\n".join(f'{f} = []' for f in FEATURES)
    (WORK / "Cargo.toml").write_text(f"""[package]
name = "tokio-suites"
version = "0.0.0"
edition = "2021"
publish = false
autotests = true
# rt_handle_block_on's basic_fs reads the Cargo.toml where its tests run
# and looks for the URL tokio's own manifest has: https://tokio.rs

[workspace]

[features]
default = [{", ".join(f'"{f}"' for f in FEATURES)}]
{features}

[dependencies]
lawn-rt = {{ path = "{ROOT}", features = ["macros", "sync", "test-util", "tokio-io"] }}
tokio = {{ version = "={version}", features = ["full", "test-util"] }}
tokio-test = "0.4"
tokio-stream = "0.1"
futures = {{ version = "0.3", features = ["async-await"] }}
futures-test = "0.3"
async-stream = "0.3"
tempfile = "3"
libc = "0.2"
bytes = "1"
pin-project-lite = "0.2"
rand = "0.9"
socket2 = {{ version = "0.6", features = ["all"] }}
nix = {{ version = "0.31", default-features = false, features = ["fs", "socket"] }}
""")
    (WORK / "src").mkdir(exist_ok=True)
    (WORK / "src" / "lib.rs").write_text("")
    return chosen, skipped


def count_tests(path):
    """Tests a file declares (for one that does not compile)."""
    text = path.read_text()
    return len(re.findall(r"#\[(?:test|lawn_rt::test)\b", text))


def build(chosen):
    """Builds every test binary it can; returns {name: executable} and
    {name: first error line} for those that did not compile."""
    args = ["cargo", "build", "--keep-going", "--message-format", "json"]
    for name in chosen:
        args += ["--test", name]
    env = dict(os.environ, CARGO_TARGET_DIR=str(WORK / "target"))
    proc = subprocess.run(args, cwd=WORK, capture_output=True, text=True, env=env)
    built, errors = {}, {}
    for line in proc.stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        target = message.get("target", {})
        if "test" not in target.get("kind", []):
            continue
        name = target.get("name")
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            built[name] = message["executable"]
        elif message.get("reason") == "compiler-message":
            msg = message["message"]
            if msg.get("level") == "error" and name not in errors:
                errors[name] = msg.get("message", "")
    for name in chosen:
        if name not in built and name not in errors:
            errors[name] = "not built (see cargo's output)"
    if not built and proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
    return built, errors


def run(name, executable, timeout):
    listed = subprocess.run(
        [executable, "--list", "--format", "terse"],
        capture_output=True, text=True, timeout=60,
    ).stdout
    names = [line[: -len(": test")] for line in listed.splitlines() if line.endswith(": test")]
    verdicts = {}
    try:
        out = subprocess.run(
            [executable, "--test-threads", "1"],
            capture_output=True, text=True, timeout=timeout, cwd=WORK,
        ).stdout
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
    for line in out.splitlines():
        m = re.match(r"^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)", line)
        if m:
            verdicts[m.group(1)] = {"ok": "pass", "FAILED": "fail", "ignored": "ignored"}[m.group(2)]
    # One test that hangs holds up the rest of its binary: run each test
    # it did not get to on its own.
    for test in names:
        if test in verdicts:
            continue
        try:
            out = subprocess.run(
                [executable, "--exact", test, "--test-threads", "1"],
                capture_output=True, text=True, timeout=min(timeout, 10), cwd=WORK,
            ).stdout
        except subprocess.TimeoutExpired:
            continue
        for line in out.splitlines():
            m = re.match(r"^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)", line)
            if m and m.group(1) == test:
                verdicts[test] = {"ok": "pass", "FAILED": "fail", "ignored": "ignored"}[m.group(2)]
    result = {}
    for test in names:
        verdict = verdicts.get(test, "hung")
        key = f"{name}::{test}"
        if verdict in ("fail", "hung") and key in DELIBERATE:
            verdict = "deliberate"
        result[test] = verdict
    return result


def main():
    argv = sys.argv[1:]
    timeout = 120
    if "--timeout" in argv:
        at = argv.index("--timeout")
        timeout = int(argv[at + 1])
        del argv[at : at + 2]
    if "--ci" in argv:
        argv.remove("--ci")
        argv += CI_FILES
        if "--timeout" not in sys.argv:
            timeout = 20
    only = set(argv)
    version, source = tokio_source()
    WORK.mkdir(parents=True, exist_ok=True)
    chosen, skipped = prepare(version, source, only)
    print(f"tokio {version}'s tests ({source / 'tests'}), renamed to lawn_rt: "
          f"{len(chosen)} files, {len(skipped)} skipped; building...", flush=True)
    started = time.time()
    built, errors = build(chosen)
    print(f"built {len(built)} of {len(chosen)} in {time.time() - started:.0f} s", flush=True)
    totals = {"pass": 0, "deliberate": 0, "fail": 0, "hung": 0, "ignored": 0, "does-not-compile": 0}
    lines = []
    for name in chosen:
        if name in errors:
            n = count_tests(WORK / "tests" / f"{name}.rs")
            totals["does-not-compile"] += n
            lines.append(f"| {name} | does not compile ({n} tests): {errors[name]} |")
            continue
        result = run(name, built[name], timeout)
        counts = {}
        for verdict in result.values():
            counts[verdict] = counts.get(verdict, 0) + 1
            totals[verdict] += 1
        summary = ", ".join(f"{v} {c}" for v, c in sorted(counts.items()))
        lines.append(f"| {name} | {summary} |")
        for test, verdict in sorted(result.items()):
            if verdict in ("fail", "hung"):
                lines.append(f"|   {test} | {verdict} |")
            elif verdict == "deliberate":
                lines.append(f"|   {test} | deliberate: {DELIBERATE[f'{name}::{test}']} |")
        print(lines[-1] if len(result) == 0 else f"| {name} | {summary} |", flush=True)
    run_total = sum(v for k, v in totals.items() if k != "ignored")
    report = [
        f"# tokio {version}'s tests on lawn_rt (`python3 scripts/tokio_suites.py`)",
        "",
        "| file | verdicts |",
        "|---|---|",
        *lines,
        "",
        "Totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()) + f" (of {run_total})",
        "",
        "Skipped files: " + ", ".join(f"{n} ({r})" for n, r in skipped),
    ]
    (WORK / "report.md").write_text("\n".join(report) + "\n")
    print("\n".join(report))
    bad = totals["fail"] + totals["hung"] + totals["does-not-compile"]
    if bad:
        print(f"tokio_suites: {bad} test(s) neither pass nor deliberate", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
