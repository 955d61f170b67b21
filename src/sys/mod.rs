//! What the operating system offers, in one place: every call the crate
//! makes that exists only on some platforms, behind plain functions and
//! types, one file per concern (as mio's and async-io's platform code sits
//! in one folder). The rest of the crate calls these; it names a
//! `target_os` only for what exists on Linux and Android alone: a public
//! item (`net::TcpSocket`, `io::Interest::PRIORITY`, `process`, ...), the
//! code only such items use (`runtime/io/pipe.rs`), and the I/O path's
//! read into uninitialized memory (`runtime/io/uninit.rs`, through
//! rustix).
//!
//! A leaf: it names no other module of the crate (`tests/layering.rs`),
//! and every layer may use it. Where platform code needs `unsafe`, the
//! block is here, with its `// SAFETY:` note (`fork.rs`'s
//! `pthread_atfork` call is the one).
//!
//! # The contract
//!
//! "Linux" means Linux and Android, where the crate has `rustix` and
//! `libc`; "elsewhere" is every other Unix (mio's kqueue or poll). Under
//! `cfg(loom)` the clock reads are the "elsewhere" ones, as the code they
//! replace had it (the models' time is loom's).
//!
//! - [`park`] ([`TimerFd`](park::TimerFd)), for the runtime's park loop:
//!   - Linux: `TimerFd::new` makes a one-shot, non-blocking, close-on-exec
//!     timerfd on `CLOCK_MONOTONIC` (the clock `std::time::Instant`
//!     reads) and registers it, readable, with the mio poll under the
//!     token given; `TimerFd::set(left)` arms it to expire `left` from now
//!     (nanosecond resolution, no timer slack), replacing any earlier
//!     arming and resetting its count (so it is never read); its expiry
//!     makes the poll report the token.
//!   - Elsewhere: `TimerFd::new` gives `Ok(None)` and no `TimerFd` can
//!     exist; the park loop then wakes by the poll's own timeout (whole
//!     milliseconds, rounded up by mio).
//! - [`thread`] (`set_timer_slack`), for the foreign shards' timer thread:
//!   - Linux: `prctl(PR_SET_TIMERSLACK)` for the calling thread: its timed
//!     waits end at most that late (the default is 50 µs).
//!   - Elsewhere: there is no such setting; `Err` (`Unsupported`).
//! - [`clock`] (`monotonic_ns`, `coarse_ns`, `coarse_resolution_ns`), for
//!   the driver's coarse tick bounds:
//!   - Linux: `clock_gettime(CLOCK_MONOTONIC)` and
//!     `clock_gettime(CLOCK_MONOTONIC_COARSE)` in ns, and
//!     `clock_getres(CLOCK_MONOTONIC_COARSE)` in ns; `None` only for a
//!     time that does not fit a `u64` of ns.
//!   - Elsewhere and under loom: `None` from all three; the driver then
//!     has no coarse clock and reads `Instant` only.
//! - [`pidfd`] (`pidfd_open`), for `process`'s exit watch:
//!   - Linux: `pidfd_open(2)` on the process `pid`: a descriptor that
//!     turns readable once the process exits; `Ok(None)` where the kernel
//!     has none (before 5.3: `ENOSYS`) or a sandbox refuses it (`EPERM`);
//!     other errors are returned, as is a `pid` out of range.
//!   - Elsewhere: `Ok(None)` (the watch falls back on `SIGCHLD` or a
//!     timer).
//! - [`fork`] (`at_fork`), for the foreign timer thread across a `fork`:
//!   - Linux: `pthread_atfork(prepare, parent, child)`: `prepare` runs in
//!     the forking thread before the fork, `parent` in it after, `child`
//!     in the child's only thread; each registration adds another set, so
//!     the caller registers once. `Err` only if libc is out of memory.
//!   - Elsewhere: nothing is registered; `Err` (`Unsupported`), and a
//!     fork's child keeps whatever its parent had.
//! - [`signal`] (the signal numbers), for `signal::unix::SignalKind`: the
//!   numbers of `SIGUSR1`, `SIGUSR2`, `SIGCHLD`, `SIGWINCH` and `SIGIO`,
//!   which differ between platforms (and between Linux architectures),
//!   and the six that are the same everywhere. A platform not listed
//!   there fails to build, rather than get wrong numbers.
//! - [`unix_addr`], for Unix socket addresses:
//!   - `SUN_PATH_LEN`: the size of `sockaddr_un`'s `sun_path` (108 on
//!     Linux, illumos and Solaris; 104 elsewhere: the BSDs', Apple's).
//!   - Linux: `ABSTRACT_NAMES` is true; `from_abstract_name` and
//!     `abstract_name` convert between a name in the abstract namespace
//!     and `std`'s address.
//!   - Elsewhere: `ABSTRACT_NAMES` is false; `from_abstract_name` fails
//!     (`Unsupported`) and `abstract_name` is `None`.

pub(crate) mod clock;
pub(crate) mod fork;
pub(crate) mod park;
pub(crate) mod pidfd;
#[cfg(unix)]
pub(crate) mod signal;
pub(crate) mod thread;
#[cfg(unix)]
pub(crate) mod unix_addr;
