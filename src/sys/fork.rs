//! Handlers run around a `fork` (see the contract in `sys/mod.rs`).

use std::io;

/// Registers `prepare` (run in the forking thread before a `fork`),
/// `parent` (in it, after) and `child` (in the child's one thread) with
/// `pthread_atfork`. Every call adds a set: register once. What the
/// handlers do is the caller's to get right: `child` runs where every
/// other thread is gone, and a lock one of them held stays taken.
/// Elsewhere nothing is registered, and the result is an `Unsupported`
/// error.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn at_fork(
    prepare: extern "C" fn(),
    parent: extern "C" fn(),
    child: extern "C" fn(),
) -> io::Result<()> {
    // SAFETY: `pthread_atfork` takes three optional C functions with no
    // arguments and no result, which `extern "C" fn()` is, and keeps them
    // for the life of the process, which a function pointer outlives. A
    // handler cannot unwind into libc: a panic that would leave an
    // `extern "C"` function aborts the process (Rust 1.81; the crate
    // needs 1.85).
    #[allow(unsafe_code)]
    let err = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    match err {
        0 => Ok(()),
        err => Err(io::Error::from_raw_os_error(err)),
    }
}

/// No `pthread_atfork` here (the crate has no `libc` on this platform).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn at_fork(
    _prepare: extern "C" fn(),
    _parent: extern "C" fn(),
    _child: extern "C" fn(),
) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}
