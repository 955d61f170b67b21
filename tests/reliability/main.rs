//! The reliability suite: one test (or a few) per promise, each bounded in
//! counts rather than wall-clock loops, so CI can keep it.
//!
//! - bad inputs across the API get an error or a panic that says what is
//!   wrong;
//! - runtimes of both flavors, built and dropped over and over with timers,
//!   sockets and blocking tasks, leak no fds, threads or memory;
//! - a million timers registered and dropped give the driver's memory back
//!   at its next idle park (a runtime's and a foreign shard's);
//! - a paused clock runs through 2^36 ms, 2^40 ms and 70 years of uptime
//!   with nothing fired early and nothing lost;
//! - cancellation storms (on the foreign shards and on a multi-thread
//!   runtime) neither deadlock nor call a waker after its timer's drop
//!   returned, and keep a sleeping thread's lateness small;
//! - a runtime with 100k sleeping tasks and 1k open connections shuts
//!   down promptly and leaves nothing open;
//! - foreign timers work in a fork's child, after a failed start of the
//!   timer thread, and across ten thousand short-lived threads, whose
//!   shards' memory comes back.
//!
//! The tests whose figures another test's load would blur (lateness, time
//! to shut down, fd, thread and heap counts) run [`alone`]; those that count
//! fds, threads or heap bytes also run in a child process of their own
//! ([`common::isolated`]). Run with `--nocapture` to see
//! the figures.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod cycles;
mod edges;
mod memory;
mod shutdown;
mod storms;
mod uptime;

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::VecDeque;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::atomic::{
    AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst,
};
use std::sync::{mpsc, Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::task::{Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant as StdInstant};

use common::units::{ms, secs, us, HOUR};
use common::{
    catch_panic_site, eventually, isolated, multi_thread_runtime, open_fds, poll_noop, poll_with,
    thread_count, thread_names, watchdog, DropCount, Gate, Rng,
};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::driver::{Driver, Handle as DriverHandle};
use lawn_rt::net::{TcpListener, TcpStream, UdpSocket};
use lawn_rt::runtime::{Builder, TimerSlack};
use lawn_rt::task;
use lawn_rt::time::{self, interval, interval_at, sleep, sleep_until, timeout, Instant, Timeout};

// ---------------------------------------------------------------------------
// Scaffolding: running alone, counting heap bytes
// ---------------------------------------------------------------------------

/// Tests that measure take this exclusively, the others shared: a lateness
/// or a count is not blurred by another test's load on a 2-core machine.
static LOAD: RwLock<()> = RwLock::new(());

/// Runs the calling test with no other test of this binary at once.
fn alone() -> RwLockWriteGuard<'static, ()> {
    LOAD.write().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the calling test alongside the other shared ones (never alongside
/// one that runs [`alone`]).
fn shared() -> RwLockReadGuard<'static, ()> {
    LOAD.read().unwrap_or_else(PoisonError::into_inner)
}

/// The system allocator, counting the bytes live while [`COUNT_HEAP`] is
/// set (only in the child process of the build-and-drop test, so no other
/// test pays for it).
struct CountingAlloc;

static COUNT_HEAP: AtomicBool = AtomicBool::new(false);
static HEAP_LIVE: AtomicIsize = AtomicIsize::new(0);

fn count_heap(delta: isize) {
    if COUNT_HEAP.load(Relaxed) {
        HEAP_LIVE.fetch_add(delta, Relaxed);
    }
}

// SAFETY: every call is passed on to `System` unchanged; the counting only
// reads the layout.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System::alloc`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count_heap(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count_heap(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) };
        count_heap(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with this layout.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count_heap(new_size as isize - layout.size() as isize);
        }
        new
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

// ---------------------------------------------------------------------------
// Driver memory, for the cycles and the million timers
// ---------------------------------------------------------------------------

/// What a driver with no timer left may hold after its idle park: near
/// zero, next to the tens of megabytes a million timers take (the bucket
/// tables, bounded by the number of TTL classes, stay).
const NEAR_ZERO: usize = 256 * 1024;

/// Waits (in rounds of `rounds` idle parks at most, each longer than the
/// last) until the current-thread runtime driving this task has parked
/// with nothing to do and no timer pending, and the driver's bytes are
/// down to [`NEAR_ZERO`]: the gate that ends each park is opened by
/// another thread, which on a loaded machine may run before the runtime
/// got to park, so one round may see no idle park. Returns the driver's
/// bytes and the rounds it took.
async fn idle_parks_until_near_zero(rounds: u32) -> (usize, u32) {
    let driver = DriverHandle::current();
    assert_eq!(
        driver.pending_timers(),
        0,
        "a timer is pending: no idle park"
    );
    for round in 1..=rounds {
        let gate = Gate::new();
        let opener = gate.clone();
        let opener = thread::spawn(move || {
            thread::sleep(ms(2) * round);
            opener.open(());
        });
        gate.wait().await;
        opener.join().unwrap();
        let bytes = driver.allocated_bytes();
        if bytes <= NEAR_ZERO {
            return (bytes, round);
        }
    }
    (driver.allocated_bytes(), rounds)
}
