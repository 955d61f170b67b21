//! The layers of the crate, checked on its source: `lawn` → `driver` →
//! `time` → `runtime` → `task` → the I/O layers (`io`, `fs`, `process`,
//! `signal`, `net`) side by side, and a layer's code never names a higher
//! one, nor a sibling it does not build on (docs may link anywhere; unit
//! tests at a file's end may use anything). `sys`, the platform code, is a
//! leaf below them all: it names no module of the crate but `loom`. This
//! is what a separate crate per layer would make Cargo enforce; see
//! docs/architecture.md.

use std::fs;
use std::path::Path;

/// Each layer and the modules its code must not name.
const RULES: &[(&str, &[&str])] = &[
    (
        "lawn",
        &["driver", "time", "runtime", "net", "task", "loom", "coop"],
    ),
    ("driver", &["time", "runtime", "net", "task", "coop"]),
    ("time", &["runtime", "net", "task"]),
    // `task` re-exports the runtime's task API and `LocalSet`, which live
    // in `runtime`: the runtime never reaches up into it.
    ("runtime", &["net", "task", "fs", "process", "signal"]),
    // `task` (spawn, JoinSet, LocalSet, task-locals) builds on `runtime`,
    // never on the I/O layers above it.
    ("task", &["net", "fs", "process", "signal"]),
    // The I/O layers sit side by side on `runtime`: `process` waits on
    // SIGCHLD through `signal`, `net` builds on `io`; no other sideways
    // edge.
    ("io", &["net", "fs", "process", "signal"]),
    ("fs", &["net", "io", "process", "signal"]),
    ("signal", &["net", "io", "fs", "process"]),
    ("process", &["net", "io", "fs"]),
    ("net", &["fs", "process", "signal"]),
    // The platform code every layer may call: a leaf.
    (
        "sys",
        &[
            "lawn", "driver", "time", "runtime", "net", "task", "io", "fs", "process", "signal",
            "coop", "sync",
        ],
    ),
];

/// The code of a source file: comment lines dropped, and everything from
/// the first `#[cfg(test)]` (or `#[cfg(all(test, ..))]`) on: the crate
/// keeps unit tests at a file's end (or in a `tests.rs` of their own,
/// which [`files`] leaves out).
fn code_of(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, line)| {
            let line = line.trim_start();
            !(line.starts_with("#[cfg(test)]") || line.starts_with("#[cfg(all(test"))
        })
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(i, line)| (i + 1, line))
        .collect()
}

/// The modules `line` names through `crate::`, including inside
/// `use crate::{a, b::c}`.
fn named(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let list = match rest.strip_prefix('{') {
            Some(inner) => &inner[..inner.find('}').unwrap_or(inner.len())],
            None => rest,
        };
        for item in list.split(',') {
            let name: &str = item
                .trim()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if !name.is_empty() {
                found.push(name);
            }
            if !rest.starts_with('{') {
                break;
            }
        }
    }
    found
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            // A module's unit tests kept in a file of their own, as at a
            // file's end, may use anything.
            && path.file_name().is_some_and(|name| name != "tests.rs")
        {
            out.push(path);
        }
    }
}

#[test]
fn no_layer_names_a_higher_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut breaches = Vec::new();
    for (layer, higher) in RULES {
        let mut paths = Vec::new();
        files(&src.join(layer), &mut paths);
        assert!(!paths.is_empty(), "no sources for layer {layer}");
        for path in paths {
            let text = fs::read_to_string(&path).expect("a source file");
            for (number, line) in code_of(&text) {
                for name in named(line) {
                    if higher.contains(&name) {
                        breaches.push(format!(
                            "{}:{number}: {layer} names crate::{name}",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        breaches.is_empty(),
        "a layer names a module it must not:\n{}",
        breaches.join("\n")
    );
}

#[test]
fn the_checker_sees_what_it_must() {
    assert_eq!(named("use crate::runtime::Builder;"), ["runtime"]);
    assert_eq!(
        named("use crate::{driver::Handle, net};"),
        ["driver", "net"]
    );
    assert_eq!(
        named("let x = crate::time::sleep(d); crate::net::x()"),
        ["time", "net"]
    );
    let text = "use a;\n// crate::net in a comment\nfn f() {}\n#[cfg(test)]\nmod tests { use crate::net; }\n";
    let code: Vec<_> = code_of(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(code, ["use a;", "fn f() {}"]);
}
