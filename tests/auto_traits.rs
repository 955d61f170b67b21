//! Auto traits (`Send`, `Sync`, `UnwindSafe`, `RefUnwindSafe`, `Unpin`) of
//! lawn_rt's public types, checked against tokio's counterparts: porting a
//! tokio service is a rename of the crate path, so wherever tokio's type
//! has one of these traits ours must have it too (ours may have more).
//!
//! Two kinds of checks:
//! - compile-time: `assert_send::<T>()` and friends for every trait
//!   tokio's type has (this file does not compile if ours lacks one);
//! - a table, computed at compile time by autoref specialization and
//!   compared when the test runs, that also catches a trait tokio's type
//!   gains in a later version, and prints where ours has more.
//!
//! And a runtime check that `catch_unwind(|| rt.block_on(..))` compiles
//! without `AssertUnwindSafe` (as it does with tokio's `Runtime`), gives
//! `Err` for a panic, and leaves the runtime working.

use std::marker::PhantomData;
use std::panic::{RefUnwindSafe, UnwindSafe};

fn assert_send<T: Send>() {}
fn assert_sync<T: Sync>() {}
fn assert_unwind_safe<T: UnwindSafe>() {}
fn assert_ref_unwind_safe<T: RefUnwindSafe>() {}
fn assert_unpin<T: Unpin>() {}

/// Which of the five auto traits a type has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Traits {
    send: bool,
    sync: bool,
    unwind_safe: bool,
    ref_unwind_safe: bool,
    unpin: bool,
}

impl Traits {
    /// The traits `self` lacks that `other` has.
    fn missing_from(self, other: Traits) -> Vec<&'static str> {
        let pairs = [
            ("Send", self.send, other.send),
            ("Sync", self.sync, other.sync),
            ("UnwindSafe", self.unwind_safe, other.unwind_safe),
            ("RefUnwindSafe", self.ref_unwind_safe, other.ref_unwind_safe),
            ("Unpin", self.unpin, other.unpin),
        ];
        pairs
            .into_iter()
            .filter(|&(_, mine, theirs)| theirs && !mine)
            .map(|(name, _, _)| name)
            .collect()
    }
}

/// Autoref specialization: for a concrete `T`, `(&Probe::<T>).has_x()`
/// resolves to the `Yes` impl (on `Probe<T>`, found first) when `T: X`, and
/// to the `No` impl (on `&Probe<T>`, one autoref further) otherwise.
struct Probe<T: ?Sized>(PhantomData<T>);

macro_rules! probe_trait {
    ($yes:ident, $no:ident, $method:ident, $($bound:tt)+) => {
        trait $yes {
            fn $method(&self) -> bool {
                true
            }
        }
        impl<T: ?Sized + $($bound)+> $yes for Probe<T> {}
        trait $no {
            fn $method(&self) -> bool {
                false
            }
        }
        impl<T: ?Sized> $no for &Probe<T> {}
    };
}

probe_trait!(SendYes, SendNo, has_send, Send);
probe_trait!(SyncYes, SyncNo, has_sync, Sync);
probe_trait!(UnwindYes, UnwindNo, has_unwind_safe, UnwindSafe);
probe_trait!(
    RefUnwindYes,
    RefUnwindNo,
    has_ref_unwind_safe,
    RefUnwindSafe
);
probe_trait!(UnpinYes, UnpinNo, has_unpin, Unpin);

macro_rules! traits_of {
    ($t:ty) => {{
        #[allow(unused_imports)]
        use self::{
            RefUnwindNo as _, RefUnwindYes as _, SendNo as _, SendYes as _, SyncNo as _,
            SyncYes as _, UnpinNo as _, UnpinYes as _, UnwindNo as _, UnwindYes as _,
        };
        let probe = &Probe::<$t>(PhantomData);
        Traits {
            send: probe.has_send(),
            sync: probe.has_sync(),
            unwind_safe: probe.has_unwind_safe(),
            ref_unwind_safe: probe.has_ref_unwind_safe(),
            unpin: probe.has_unpin(),
        }
    }};
}

/// One row: our type, tokio's counterpart.
macro_rules! rows {
    ($($ours:ty => $theirs:ty),* $(,)?) => {
        vec![$((stringify!($ours), traits_of!($ours), traits_of!($theirs))),*]
    };
}

/// A future that is neither `Sync` nor unwind safe, for `Timeout<F>`'s
/// traits where they follow `F`'s.
type Hostile = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;
type PlainFuture = std::future::Ready<()>;

/// Traits tokio's type has and ours lacks, in files this test does not
/// own (reported; the test fails on any other gap, and says when one of
/// these closes). `JoinHandle` and `AbortHandle` hold `Arc<dyn ...>`
/// trait objects without unwind-safety bounds (`src/runtime/task/join.rs`;
/// tokio declares both unwind safe); `EnterGuard` is `!Sync` through its
/// time-driver guard.
const KNOWN_GAPS: &[(&str, &[&str])] = &[("lawn_rt::runtime::EnterGuard<'static>", &["Sync"])];

#[test]
fn auto_traits_match_tokio() {
    let rows = rows![
        lawn_rt::runtime::Runtime => tokio::runtime::Runtime,
        lawn_rt::runtime::LocalRuntime => tokio::runtime::LocalRuntime,
        lawn_rt::runtime::LocalOptions => tokio::runtime::LocalOptions,
        lawn_rt::runtime::Handle => tokio::runtime::Handle,
        lawn_rt::runtime::Builder => tokio::runtime::Builder,
        lawn_rt::runtime::EnterGuard<'static> => tokio::runtime::EnterGuard<'static>,
        lawn_rt::task::JoinHandle<()> => tokio::task::JoinHandle<()>,
        lawn_rt::task::AbortHandle => tokio::task::AbortHandle,
        lawn_rt::task::JoinError => tokio::task::JoinError,
        lawn_rt::time::Sleep => tokio::time::Sleep,
        lawn_rt::time::Timeout<PlainFuture> => tokio::time::Timeout<PlainFuture>,
        lawn_rt::time::Timeout<Hostile> => tokio::time::Timeout<Hostile>,
        lawn_rt::time::Interval => tokio::time::Interval,
        lawn_rt::time::DelayQueue<u8> => tokio_util::time::DelayQueue<u8>,
        lawn_rt::time::Instant => tokio::time::Instant,
        lawn_rt::net::TcpStream => tokio::net::TcpStream,
        lawn_rt::net::TcpListener => tokio::net::TcpListener,
        lawn_rt::net::UdpSocket => tokio::net::UdpSocket,
        lawn_rt::signal::unix::Signal => tokio::signal::unix::Signal,
        lawn_rt::signal::unix::SignalKind => tokio::signal::unix::SignalKind,
        lawn_rt::fs::File => tokio::fs::File,
        lawn_rt::fs::ReadDir => tokio::fs::ReadDir,
        lawn_rt::fs::DirEntry => tokio::fs::DirEntry,
    ];
    let mut failures = Vec::new();
    for (name, ours, theirs) in rows {
        let missing = ours.missing_from(theirs);
        let extra = theirs.missing_from(ours);
        eprintln!("{name}: tokio's {theirs:?}; ours lacks {missing:?}, has beyond {extra:?}");
        let known = KNOWN_GAPS
            .iter()
            .find(|(gap, _)| *gap == name)
            .map_or(&[][..], |(_, traits)| *traits);
        if missing.iter().any(|t| !known.contains(t)) {
            failures.push(format!("{name} lacks {missing:?}, which tokio's type has"));
        }
        if known.iter().any(|t| !missing.contains(t)) {
            eprintln!("  note: a known gap of {name} has closed: update KNOWN_GAPS");
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The traits tokio's counterparts have (less the known gaps), asserted
/// at compile time.
#[test]
fn compile_time_assertions() {
    macro_rules! assert_traits {
        ($($t:ty: $($check:ident),+;)*) => {$($( $check::<$t>(); )+)*};
    }
    assert_traits! {
        lawn_rt::runtime::Runtime: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::runtime::LocalRuntime: assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::runtime::Handle: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::runtime::Builder: assert_send, assert_sync, assert_unpin;
        lawn_rt::runtime::EnterGuard<'static>: assert_unpin;
        lawn_rt::task::JoinHandle<()>: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::task::AbortHandle: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::task::JoinSet<()>: assert_send, assert_sync, assert_unpin;
        lawn_rt::task::LocalSet: assert_unpin;
        lawn_rt::task::JoinError: assert_send, assert_sync, assert_unpin;
        lawn_rt::time::Sleep: assert_send, assert_sync;
        lawn_rt::time::Timeout<PlainFuture>: assert_send, assert_sync;
        lawn_rt::time::Timeout<Hostile>: assert_send;
        lawn_rt::time::Interval: assert_send, assert_sync, assert_unpin;
        lawn_rt::time::DelayQueue<u8>: assert_send, assert_sync, assert_unpin;
        lawn_rt::time::Instant: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::net::TcpStream: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::net::TcpListener: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::net::UdpSocket: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::signal::unix::Signal: assert_send, assert_sync, assert_unpin;
        lawn_rt::signal::unix::SignalKind: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
        lawn_rt::fs::File: assert_send, assert_sync, assert_unwind_safe, assert_unpin;
        lawn_rt::fs::ReadDir: assert_send, assert_sync, assert_unpin;
        lawn_rt::fs::DirEntry: assert_send, assert_sync, assert_unwind_safe, assert_ref_unwind_safe, assert_unpin;
    }
}

/// The futures of the new free functions are `Send` (they can be spawned).
#[test]
fn new_futures_are_send() {
    fn send<F: std::future::Future + Send>(_: F) {}
    send(lawn_rt::signal::ctrl_c());
    send(lawn_rt::fs::read("x"));
    send(lawn_rt::fs::read_dir("x"));
    send(lawn_rt::fs::File::open("x"));
}

/// `catch_unwind(|| rt.block_on(..))` compiles without `AssertUnwindSafe`,
/// as with tokio's runtime; a panic there is an `Err`, and the runtime
/// goes on working. Both flavors.
#[test]
fn catch_unwind_around_block_on() {
    let runtimes = [
        lawn_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        lawn_rt::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ];
    for rt in &runtimes {
        let caught = std::panic::catch_unwind(|| rt.block_on(async { panic!("boom") }));
        assert!(caught.is_err(), "{rt:?}");
        let handle = rt.handle();
        let caught = std::panic::catch_unwind(|| {
            handle.block_on(async {
                lawn_rt::time::sleep(std::time::Duration::from_millis(1)).await;
                panic!("boom after a sleep")
            })
        });
        assert!(caught.is_err(), "{rt:?}");
        // Still working: tasks, timers, the blocking pool.
        let answer = rt.block_on(async {
            lawn_rt::time::sleep(std::time::Duration::from_millis(1)).await;
            let blocking = lawn_rt::task::spawn_blocking(|| 40);
            lawn_rt::spawn(async { 2 }).await.unwrap() + blocking.await.unwrap()
        });
        assert_eq!(answer, 42, "{rt:?}");
    }
    let tokio_rt = tokio::runtime::Runtime::new().unwrap();
    assert!(std::panic::catch_unwind(|| tokio_rt.block_on(async { panic!("boom") })).is_err());
}
