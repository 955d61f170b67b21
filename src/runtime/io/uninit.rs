//! Reads into the part of tokio's `ReadBuf` that is not yet initialized,
//! without zeroing it first.
//!
//! A `ReadBuf` made over spare capacity (hyper's read buffer, tokio-util's
//! codecs) starts with nothing initialized, on every read. Zeroing it
//! before each read (`initialize_unfilled`) writes the whole buffer: CPU on
//! every read, and memory made resident that an idle connection never
//! uses. `read(2)` writes only the bytes it returns, so it may be handed
//! the uninitialized part directly; that takes the two `unsafe` calls
//! below, and this module is the only place the I/O path has them
//! (measured in docs/decisions/io-path-under-real-clients.md).
//!
//! Ground rules: nothing here writes to the buffer but the kernel's
//! `read`; `assume_init` is told exactly the bytes `read` returned.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::AsFd;

use tokio::io::ReadBuf;

/// Reads once from `fd` into `buf`'s unfilled part and advances `buf` by
/// the bytes read; gives that count (0: end of file, or no room).
pub(crate) fn read_into(fd: impl AsFd, buf: &mut ReadBuf<'_>) -> io::Result<usize> {
    // SAFETY: `unfilled_mut` is unsafe because a caller could write
    // uninitialized bytes over bytes `buf` counts as initialized; the only
    // writer here is `read(2)`, which writes the bytes it received.
    let unfilled = unsafe { buf.unfilled_mut() };
    let (read, _) = rustix::io::read(fd, unfilled)?;
    let n = read.len();
    // SAFETY: `read` initialized the first `n` bytes of the unfilled part
    // (the slice it returned is exactly those bytes).
    unsafe { buf.assume_init(n) };
    buf.advance(n);
    Ok(n)
}
