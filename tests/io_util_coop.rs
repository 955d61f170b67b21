//! `lawn_rt::io`'s in-memory readers and writers (`sink`, `empty`,
//! `repeat`, `duplex`, `simplex`) and `copy`/`copy_buf` count the task's
//! `lawn_rt` budget, as tokio's count tokio's: a task looping over one that
//! is always ready gets `Pending` (and is woken) once the budget is spent,
//! on both flavors; outside a runtime they are never held back.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::{Context, Poll};

use lawn_rt::io::{self, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use lawn_rt::runtime::{Builder, Runtime};

/// More polls than a task's budget (128) allows to complete.
const POLLS: usize = 1_000;

fn runtimes() -> [Runtime; 2] {
    [
        Builder::new_current_thread().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap(),
    ]
}

/// Polls a fresh operation (`op` makes and polls it once) over and over
/// in one task poll: whether one answered `Pending` within [`POLLS`].
async fn holds_back(mut op: impl FnMut(&mut Context<'_>) -> Poll<()>) -> bool {
    poll_fn(|cx: &mut Context<'_>| {
        for _ in 0..POLLS {
            if op(cx).is_pending() {
                return Poll::Ready(true);
            }
        }
        Poll::Ready(false)
    })
    .await
}

/// Polls `fut` once, its output dropped.
fn once<F: Future>(cx: &mut Context<'_>, fut: F) -> Poll<()> {
    pin!(fut).poll(cx).map(drop)
}

/// Each utility, as a loop a task could run forever: whether it yields.
async fn each_yields() -> Vec<(&'static str, bool)> {
    let mut out = Vec::new();
    let mut sink = io::sink();
    out.push((
        "sink write",
        holds_back(|cx| once(cx, sink.write_all(b"abc"))).await,
    ));
    let bufs = [std::io::IoSlice::new(b"ab"), std::io::IoSlice::new(b"c")];
    out.push((
        "sink write_vectored",
        holds_back(|cx| once(cx, sink.write_vectored(&bufs))).await,
    ));
    out.push(("sink flush", holds_back(|cx| once(cx, sink.flush())).await));
    out.push((
        "sink shutdown",
        holds_back(|cx| once(cx, sink.shutdown())).await,
    ));
    let mut empty = io::empty();
    let mut buf = [0u8; 16];
    out.push((
        "empty read",
        holds_back(|cx| once(cx, empty.read(&mut buf))).await,
    ));
    let mut line = String::new();
    out.push((
        "empty read_line",
        holds_back(|cx| once(cx, empty.read_line(&mut line))).await,
    ));
    let mut repeat = io::repeat(7);
    out.push((
        "repeat read",
        holds_back(|cx| once(cx, repeat.read_exact(&mut buf))).await,
    ));
    let (mut a, mut b) = io::duplex(64);
    out.push((
        "duplex",
        holds_back(|cx| {
            once(cx, async {
                a.write_all(b"ping").await.unwrap();
                b.read_exact(&mut [0u8; 4]).await.unwrap();
            })
        })
        .await,
    ));
    let mut pipe = io::SimplexStream::new_unsplit(64);
    out.push((
        "simplex",
        holds_back(|cx| {
            once(cx, async {
                pipe.write_all(b"ping").await.unwrap();
                pipe.read_exact(&mut [0u8; 4]).await.unwrap();
            })
        })
        .await,
    ));
    out.push((
        "copy",
        holds_back(|cx| {
            let mut reader: &[u8] = b"hello";
            once(cx, io::copy(&mut reader, &mut Vec::new()))
        })
        .await,
    ));
    out.push((
        "copy_buf",
        holds_back(|cx| {
            let mut reader: &[u8] = b"hello";
            once(cx, io::copy_buf(&mut reader, &mut Vec::new()))
        })
        .await,
    ));
    out
}

#[test]
fn always_ready_io_utilities_yield_once_the_budget_is_spent() {
    for rt in runtimes() {
        let flavor = rt.handle().runtime_flavor();
        let results = rt.block_on(async { lawn_rt::spawn(each_yields()).await.unwrap() });
        for (what, yielded) in results {
            assert!(
                yielded,
                "{what} on {flavor:?}: never Pending in {POLLS} polls"
            );
        }
    }
}

#[test]
fn outside_a_runtime_they_are_never_held_back() {
    let results = futures::executor::block_on(each_yields());
    for (what, yielded) in results {
        assert!(!yielded, "{what}: held back with no runtime's budget");
    }
}

/// The shape of tokio's own tests: a loop over an always-ready sink,
/// raced (biased) against `yield_now`, ends because the loop yields.
#[test]
fn a_loop_over_a_sink_lets_yield_now_win() {
    for rt in runtimes() {
        rt.block_on(async {
            lawn_rt::select! {
                biased;
                _ = async {
                    loop {
                        io::sink().write_all(b"abc").await.unwrap();
                    }
                } => {}
                _ = lawn_rt::task::yield_now() => {}
            }
        });
    }
}

/// A zero-sized pipe panics at the caller's line, as tokio's does (the
/// wrappers pass the caller on).
#[test]
fn zero_capacity_pipes_panic_at_the_callers_line() {
    type Hook = dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync;
    let earlier: std::sync::Arc<Hook> = std::panic::take_hook().into();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let me = std::thread::current().id();
    {
        let (seen, earlier) = (seen.clone(), earlier.clone());
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() == me {
                let file = info.location().map(|l| l.file().to_string());
                seen.lock().unwrap().push(file.unwrap_or_default());
            } else {
                earlier(info);
            }
        }));
    }
    let results = [
        std::panic::catch_unwind(|| drop(io::duplex(0))).is_err(),
        std::panic::catch_unwind(|| drop(io::simplex(0))).is_err(),
        std::panic::catch_unwind(|| drop(io::SimplexStream::new_unsplit(0))).is_err(),
    ];
    std::panic::set_hook(Box::new(move |info| earlier(info)));
    assert_eq!(results, [true; 3]);
    assert_eq!(*seen.lock().unwrap(), vec![file!().to_string(); 3]);
}
