//! The signal numbers that differ between Unix platforms: `SIGUSR1`,
//! `SIGUSR2`, `SIGCHLD`, `SIGWINCH`, `SIGIO` (`SIGPOLL`). The others
//! (`SIGHUP` 1, `SIGINT` 2, `SIGQUIT` 3, `SIGPIPE` 13, `SIGALRM` 14,
//! `SIGTERM` 15) are the same on every platform listed here; a platform
//! not listed fails to build rather than get wrong numbers (see the
//! contract in `sys/mod.rs`).

use std::os::raw::c_int;

/// Linux on most architectures (x86, ARM, RISC-V, PowerPC, s390x,
/// LoongArch), Android, Fuchsia, Redox, Emscripten.
#[cfg(any(
    all(
        any(target_os = "linux", target_os = "android"),
        not(any(
            target_arch = "mips",
            target_arch = "mips64",
            target_arch = "mips32r6",
            target_arch = "mips64r6",
            target_arch = "sparc",
            target_arch = "sparc64"
        ))
    ),
    target_os = "fuchsia",
    target_os = "redox",
    target_os = "emscripten",
    target_os = "l4re",
    target_os = "nuttx"
))]
const VARYING: [c_int; 5] = [10, 12, 17, 28, 29];

/// Linux on MIPS, Solaris, illumos, QNX: the System V numbers.
#[cfg(any(
    all(
        any(target_os = "linux", target_os = "android"),
        any(
            target_arch = "mips",
            target_arch = "mips64",
            target_arch = "mips32r6",
            target_arch = "mips64r6"
        )
    ),
    target_os = "solaris",
    target_os = "illumos",
    target_os = "nto"
))]
const VARYING: [c_int; 5] = [16, 17, 18, 20, 22];

/// Apple's systems, the BSDs, Linux on SPARC, AIX, GNU Hurd, Cygwin:
/// the BSD numbers.
#[cfg(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd",
    all(
        any(target_os = "linux", target_os = "android"),
        any(target_arch = "sparc", target_arch = "sparc64")
    ),
    target_os = "aix",
    target_os = "hurd",
    target_os = "cygwin"
))]
const VARYING: [c_int; 5] = [30, 31, 20, 28, 23];

pub(crate) const SIGHUP: c_int = 1;
pub(crate) const SIGINT: c_int = 2;
pub(crate) const SIGQUIT: c_int = 3;
pub(crate) const SIGPIPE: c_int = 13;
pub(crate) const SIGALRM: c_int = 14;
pub(crate) const SIGTERM: c_int = 15;
pub(crate) const SIGUSR1: c_int = VARYING[0];
pub(crate) const SIGUSR2: c_int = VARYING[1];
pub(crate) const SIGCHLD: c_int = VARYING[2];
pub(crate) const SIGWINCH: c_int = VARYING[3];
pub(crate) const SIGIO: c_int = VARYING[4];
