//! Models 13-17: the runtime's own hand-offs (schedulers, task states,
//! socket readiness, blocking pool), each built from the public API of a
//! runtime whose park is loom's (`runtime/park_model.rs` in `lawn_rt`): no
//! time driver, no I/O, every lock, atomic, condition variable and thread
//! of the schedulers from loom.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use lawn_rt::runtime::{model::Readiness, Builder, Runtime};
use loom::thread;

use crate::support::{assert_released, Recorder};

/// Model 13, a task queued while a worker decides to park: two workers of
/// a multi-thread runtime start with nothing to do and park while the main
/// thread spawns a task (through the inject queue) and waits for it. The
/// worker counts itself in `num_parked` and re-reads every queue length
/// under the `idle` lock; the spawner publishes the length, then reads
/// `num_parked`. Whatever the interleaving, a worker runs the task (else
/// every thread sleeps and loom reports a deadlock), and dropping the
/// runtime stops and joins both workers. Three threads taking many locks:
/// run it with [`RUNTIME_PREEMPTIONS`].
pub fn task_queued_while_a_worker_parks() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(2));
    let ran = std::sync::Arc::new(AtomicBool::new(false));
    let task = {
        let ran = ran.clone();
        rt.spawn(async move { ran.store(true, SeqCst) })
    };
    rt.block_on(task).unwrap();
    assert!(ran.load(SeqCst));
    drop(rt);
}

/// Model 14, a task's completion vs its `JoinHandle`: a one-worker runtime
/// runs a task that completes at once, while the main thread polls its
/// handle with one waker, then with another (a task moved between
/// executors), and waits. The second waker is woken, or the output was
/// there when polled; the first is never woken once replaced; the output
/// is handed over exactly once. Run it with [`RUNTIME_PREEMPTIONS`].
pub fn join_handle_vs_completion() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(2));
    let first = Signal::new();
    let second = Signal::new();
    let mut handle = pin!(rt.spawn(async { 1 }));
    let output = match poll(handle.as_mut(), &first.waker()) {
        Poll::Ready(output) => output,
        Poll::Pending => match poll(handle.as_mut(), &second.waker()) {
            Poll::Ready(output) => output,
            Poll::Pending => {
                let replaced = first.woken();
                // As an executor does: no poll again until woken.
                second.wait();
                let output = block_on_with(handle.as_mut(), &second);
                assert_eq!(
                    first.woken(),
                    replaced,
                    "a replaced JoinHandle waker was woken"
                );
                output
            }
        },
    };
    assert_eq!(output.unwrap(), 1);
    drop(rt);
}

/// Model 14b, abort vs completion: a one-worker runtime runs a task that
/// completes at once while the main thread aborts it and waits for it:
/// its handle gives the output if the future ran to its end, else a
/// cancellation, never neither.
pub fn abort_vs_completion() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(1));
    let ran = std::sync::Arc::new(AtomicBool::new(false));
    let aborted = {
        let ran = ran.clone();
        rt.spawn(async move {
            ran.store(true, SeqCst);
            2
        })
    };
    aborted.abort_handle().abort();
    assert_output_or_cancelled(rt.block_on(aborted), 2, &ran, "a task aborted as it ended");
    drop(rt);
}

/// Model 14c, a `JoinHandle` dropped while its task completes: the main
/// thread polls the handle once (storing its waker) and drops it while a
/// worker runs the task to its end. The output is dropped exactly once
/// (by the completion if the handle was gone, else by the handle's drop),
/// and once the runtime is dropped no clone of the handle's waker is kept.
pub fn join_handle_drop_vs_completion() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(1));
    let drops = std::sync::Arc::new(AtomicUsize::new(0));
    let output = Counted(drops.clone());
    let recorder = Recorder::new("dropped JoinHandle");
    let mut handle = Box::pin(rt.spawn(async move { output }));
    let _ = poll(handle.as_mut(), &recorder.waker());
    drop(handle);
    drop(rt);
    assert_eq!(
        drops.load(SeqCst),
        1,
        "the output was not dropped exactly once"
    );
    assert_released(&recorder);
}

/// A task's output that counts its drops.
struct Counted(std::sync::Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// Model 15, a socket event between an operation's `WouldBlock` and its
/// clear: a reader saw the socket readable, read, got `WouldBlock`; an
/// event (new data: reported once, edge-triggered) arrives on the park
/// loop's thread while the reader clears what it saw, then polls again
/// and waits. The event is never lost: the reader finds the socket
/// readable, or is woken by the event.
pub fn readiness_event_vs_clear() {
    let socket = std::sync::Arc::new(Readiness::new());
    socket.event_readable();
    let reader = Signal::new();
    let Poll::Ready(Some(seen)) = socket.poll_readable(&mut Context::from_waker(&reader.waker()))
    else {
        panic!("a socket reported readable is readable");
    };
    let event = {
        let socket = socket.clone();
        thread::spawn(move || socket.event_readable())
    };
    socket.would_block(seen);
    loop {
        match socket.poll_readable(&mut Context::from_waker(&reader.waker())) {
            Poll::Ready(found) => {
                assert!(found.is_some());
                break;
            }
            Poll::Pending => reader.wait(),
        }
    }
    event.join().unwrap();
}

/// Model 16, the blocking pool's shutdown vs a blocking task finishing: a
/// current-thread runtime starts a pool thread for one blocking task and
/// is dropped at once. The drop waits for the thread (it counts itself
/// out under the pool's lock, then signals), so it returns, with the
/// thread joined; the task's handle resolves: the output if the closure
/// ran, else a cancellation.
pub fn blocking_shutdown_vs_finishing_task() {
    let (result, ran) = spawn_blocking_then_drop_runtime(3);
    assert_output_or_cancelled(result, 3, &ran, "a blocking task at shutdown");
}

/// A current-thread runtime (blocking threads that leave at once when
/// idle) that spawns one blocking task giving `output` and is dropped at
/// once; the task's result (its handle must be ready), and whether its
/// closure ran.
fn spawn_blocking_then_drop_runtime(
    output: i32,
) -> (
    Result<i32, lawn_rt::task::JoinError>,
    std::sync::Arc<AtomicBool>,
) {
    let rt = runtime(Builder::new_current_thread().thread_keep_alive(Duration::ZERO));
    let ran = std::sync::Arc::new(AtomicBool::new(false));
    let task = {
        let ran = ran.clone();
        rt.spawn_blocking(move || {
            ran.store(true, SeqCst);
            output
        })
    };
    drop(rt);
    let mut task = pin!(task);
    let Poll::Ready(result) = poll(task.as_mut(), Waker::noop()) else {
        panic!("a blocking task's handle is pending after its runtime was dropped");
    };
    (result, ran)
}

/// Model 16b, a blocking task still queued when its runtime shuts down:
/// the runtime is dropped right after `spawn_blocking` started a pool
/// thread for the task, which that thread may not have taken yet. The
/// shutdown lets the queue run (as tokio's pool does in practice), so the
/// task runs and its handle gives its output, whichever thread gets there
/// first.
pub fn blocking_task_queued_at_shutdown_runs() {
    let (result, ran) = spawn_blocking_then_drop_runtime(5);
    match result {
        Ok(output) => assert_eq!(output, 5),
        Err(err) => panic!("a blocking task queued at shutdown did not run: {err}"),
    }
    assert!(ran.load(SeqCst));
}

/// Model 17, a current-thread runtime dropped inside its own task while
/// another thread spawns onto it: the shutdown is carried out by the
/// driving thread once it is out of the task (a task cannot cancel itself
/// from inside its own poll). `block_on` returns; the task spawned from
/// the other thread ran or was cancelled, never left pending.
pub fn runtime_dropped_inside_its_own_task() {
    let rt = runtime(&mut Builder::new_current_thread());
    let handle = rt.handle().clone();
    let spawner = {
        let handle = handle.clone();
        thread::spawn(move || handle.spawn(async { 4 }))
    };
    let dropper = handle.spawn(async move { drop(rt) });
    handle.block_on(dropper).unwrap();
    let mut other = pin!(spawner.join().unwrap());
    drop(handle);
    match poll(other.as_mut(), Waker::noop()) {
        Poll::Ready(Ok(output)) => assert_eq!(output, 4),
        Poll::Ready(Err(err)) => assert!(err.is_cancelled(), "{err}"),
        Poll::Pending => panic!("a task spawned onto a runtime that shut down is still pending"),
    }
}

/// Model 17b, a current-thread runtime dropped while another thread drives
/// it: that thread's `block_on` runs a task that wakes itself forever (so
/// the task sits in the queue the driving thread holds) and returns, while
/// the main thread drops the runtime. Whichever comes first, the
/// shutdown or the driving thread's giving back of its queue, the queued
/// task is dropped: once both are done, only the model's own handle
/// refers to the scheduler (else the task and the runtime keep each
/// other alive, with its epoll, eventfd and timerfd).
pub fn runtime_dropped_while_another_thread_drives() {
    // One task a turn, so the driving thread's second poll of its future
    // comes with the task queued again.
    let rt = runtime(Builder::new_current_thread().event_interval(1));
    let handle = rt.handle().clone();
    drop(rt.spawn(std::future::poll_fn(|cx| {
        cx.waker().wake_by_ref();
        Poll::<()>::Pending
    })));
    let driver = {
        let handle = handle.clone();
        thread::spawn(move || {
            let mut yielded = false;
            handle.block_on(std::future::poll_fn(move |cx| {
                if yielded {
                    return Poll::Ready(());
                }
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }));
        })
    };
    drop(rt);
    driver.join().unwrap();
    assert_eq!(
        lawn_rt::runtime::model_scheduler_references(&handle),
        1,
        "a task queued when its runtime shut down keeps the runtime alive"
    );
}

/// The preemption bound of the runtime models whose three or four
/// threads take many locks (13, 14, 19, 21, 21b, 21c): 3 explores
/// ~170,000 and ~220,000 interleavings in ~16 s for 13 and 14; the
/// default bound would take hours.
pub const RUNTIME_PREEMPTIONS: usize = 3;

/// Panics unless `result` is the task's `expected` output, or a
/// cancellation of a task whose body did not run (`ran` unset): a task
/// that ran to its end must not lose its output.
#[track_caller]
fn assert_output_or_cancelled(
    result: Result<i32, lawn_rt::task::JoinError>,
    expected: i32,
    ran: &AtomicBool,
    what: &str,
) {
    match result {
        Ok(output) => assert_eq!(output, expected, "{what}"),
        Err(err) => {
            assert!(err.is_cancelled(), "{what}: {err}");
            assert!(!ran.load(SeqCst), "{what}: it ran, and its output was lost");
        }
    }
}

fn runtime(builder: &mut Builder) -> Runtime {
    builder.build().expect("a runtime under loom builds")
}

fn poll<F: Future + ?Sized>(future: std::pin::Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(waker))
}

/// Polls `future` with `signal`'s waker until it is ready, waiting for a
/// wake-up between polls (loom reports a deadlock if none comes).
fn block_on_with<F: Future + ?Sized>(
    mut future: std::pin::Pin<&mut F>,
    signal: &std::sync::Arc<Signal>,
) -> F::Output {
    loop {
        if let Poll::Ready(output) = poll(future.as_mut(), &signal.waker()) {
            return output;
        }
        signal.wait();
    }
}

/// A waker that wakes a loom thread and counts its wake-ups (a flag and a
/// condition variable: loom's `thread::park` does not mix with `join`).
struct Signal {
    woken: AtomicUsize,
    /// Wake-ups not yet consumed by [`Signal::wait`].
    unseen: loom::sync::Mutex<usize>,
    condvar: loom::sync::Condvar,
}

impl Signal {
    fn new() -> std::sync::Arc<Signal> {
        std::sync::Arc::new(Signal {
            woken: AtomicUsize::new(0),
            unseen: loom::sync::Mutex::new(0),
            condvar: loom::sync::Condvar::new(),
        })
    }

    fn waker(self: &std::sync::Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }

    fn woken(&self) -> usize {
        self.woken.load(SeqCst)
    }

    /// Blocks until a wake-up not yet seen.
    fn wait(&self) {
        let mut unseen = self.unseen.lock().unwrap();
        while *unseen == 0 {
            unseen = self.condvar.wait(unseen).unwrap();
        }
        *unseen -= 1;
    }
}

impl Wake for Signal {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.woken.fetch_add(1, SeqCst);
        *self.unseen.lock().unwrap() += 1;
        self.condvar.notify_all();
    }
}

/// Model 19: a `JoinSet` joined while its task completes on a worker: the
/// task's completion queues its entry and wakes the joiner, or the entry
/// is there when the joiner looks (planted bug `set_wake`: queued without
/// waking the joiner, a deadlock).
pub fn join_set_vs_completion() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(1));
    let mut set = lawn_rt::task::JoinSet::new();
    set.spawn_on(async { 5 }, rt.handle());
    let signal = Signal::new();
    let next = block_on_with(
        pin!(std::future::poll_fn(|cx| set.poll_join_next(cx))),
        &signal,
    );
    assert_eq!(next.unwrap().unwrap(), 5);
    assert!(set.is_empty());
    drop(rt);
}

/// A one-shot for the local models: a flag and a waker behind a loom lock.
struct Shot {
    inner: loom::sync::Mutex<(bool, Option<Waker>)>,
}

impl Shot {
    fn fire(&self) {
        let waker = {
            let mut inner = self.inner.lock().unwrap();
            inner.0 = true;
            inner.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn wait(self: std::sync::Arc<Self>) -> impl Future<Output = ()> {
        std::future::poll_fn(move |cx| {
            let mut inner = self.inner.lock().unwrap();
            if inner.0 {
                Poll::Ready(())
            } else {
                inner.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        })
    }
}

/// Model 20: a `!Send` local task woken from another thread while the
/// `LocalSet`'s turn runs and registers the set's waker: the task resumes
/// (planted bug `local_wake`: queued without waking the set's poller, a
/// deadlock).
pub fn local_set_remote_wake() {
    let shot = std::sync::Arc::new(Shot {
        inner: loom::sync::Mutex::new((false, None)),
    });
    let local = lawn_rt::task::LocalSet::new();
    let wait = shot.clone().wait();
    let handle = local.spawn_local(async move {
        let _not_send = std::rc::Rc::new(());
        wait.await;
        7
    });
    let firer = {
        let shot = shot.clone();
        thread::spawn(move || shot.fire())
    };
    let signal = Signal::new();
    let out = block_on_with(pin!(local.run_until(handle)), &signal);
    assert_eq!(out.unwrap(), 7);
    firer.join().unwrap();
}

/// Model 20b: abort of a local task from another thread while the set
/// polls it and it completes: the handle gives the output or a
/// cancellation, never hangs.
pub fn local_set_abort_vs_completion() {
    let shot = std::sync::Arc::new(Shot {
        inner: loom::sync::Mutex::new((false, None)),
    });
    let local = lawn_rt::task::LocalSet::new();
    let wait = shot.clone().wait();
    let handle = local.spawn_local(async move {
        wait.await;
        8
    });
    let abort = handle.abort_handle();
    let aborter = thread::spawn(move || abort.abort());
    let firer = {
        let shot = shot.clone();
        thread::spawn(move || shot.fire())
    };
    let signal = Signal::new();
    match block_on_with(pin!(local.run_until(handle)), &signal) {
        Ok(out) => assert_eq!(out, 8),
        Err(err) => assert!(err.is_cancelled()),
    }
    aborter.join().unwrap();
    firer.join().unwrap();
}

/// Model 21, `block_in_place` hands a worker over: a one-worker runtime
/// runs task C, which yields (its waker waits in the worker's deferred
/// list), and task A, whose closure blocks until task B, spawned by the
/// main thread after A, has run. The worker moves to a new thread with its
/// queue and deferred wakers while the old one blocks: B runs (else A's
/// closure waits forever), C resumes (else it waits forever), A goes on
/// after its closure, and dropping the runtime joins all three threads'
/// worth of work (planted bug `handoff_local`: the new thread starts
/// without the old one's deferred wakers, a deadlock). Run it with
/// [`RUNTIME_PREEMPTIONS`].
pub fn block_in_place_hand_off() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(1));
    let gate = std::sync::Arc::new((loom::sync::Mutex::new(false), loom::sync::Condvar::new()));
    let yielder = rt.spawn(async {
        lawn_rt::task::yield_now().await;
        1
    });
    let blocker = {
        let gate = gate.clone();
        rt.spawn(async move {
            lawn_rt::task::block_in_place(|| {
                let (open, opened) = &*gate;
                let mut open = open.lock().unwrap();
                while !*open {
                    open = opened.wait(open).unwrap();
                }
            });
            2
        })
    };
    let opener = rt.spawn(async move {
        let (open, opened) = &*gate;
        *open.lock().unwrap() = true;
        opened.notify_all();
        3
    });
    assert_eq!(rt.block_on(opener).unwrap(), 3);
    assert_eq!(rt.block_on(blocker).unwrap(), 2);
    assert_eq!(rt.block_on(yielder).unwrap(), 1);
    drop(rt);
}

/// Model 21b, the runtime dropped as a worker hands itself over: task A's
/// closure runs in `block_in_place` (then A completes), task D never
/// completes; the main thread drops the runtime at once. Whether the
/// worker saw the shutdown first or handed over first, when the drop
/// returns D's future has been dropped (the new thread was joined after
/// cancelling it), and A gave its output or was cancelled before its body
/// ran (the last worker's shutdown leaves A to the thread still polling
/// it). Planted bugs: `handoff_join` (the drop joins one round of threads
/// and misses the new one), `shutdown_running` (the shutdown cancels A
/// while its old thread polls it, and its output is replaced). Run it with
/// [`RUNTIME_PREEMPTIONS`] (at 5: ~165 s).
pub fn block_in_place_vs_drop() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(1));
    let ran = std::sync::Arc::new(AtomicBool::new(false));
    let dropped = std::sync::Arc::new(AtomicBool::new(false));
    let blocker = {
        let ran = ran.clone();
        rt.spawn(async move {
            lawn_rt::task::block_in_place(|| ran.store(true, SeqCst));
            5
        })
    };
    let forever = {
        let guard = SetOnDrop(dropped.clone());
        rt.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        })
    };
    drop(rt);
    assert!(
        dropped.load(SeqCst),
        "the runtime's drop returned before every task's future was dropped"
    );
    let mut blocker = pin!(blocker);
    match poll(blocker.as_mut(), Waker::noop()) {
        Poll::Ready(result) => assert_output_or_cancelled(result, 5, &ran, "the blocker"),
        Poll::Pending => panic!("a task of a runtime that was dropped is still pending"),
    }
    drop(forever);
}

/// Sets its flag when dropped.
struct SetOnDrop(std::sync::Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

/// Model 22, a signal's broadcast vs a listener's poll: one thread does
/// what the handler and a draining listener in another runtime do (flag
/// the signal, then take the flag, bump the counter and wake the
/// listeners) while the main thread polls a listener made before and
/// waits to be woken. The listener hears the signal exactly once (planted
/// bug `signal_recheck`: the listener stores its waker without looking at
/// the counter again, and a broadcast in between wakes nobody: deadlock).
pub fn signal_broadcast_vs_listener() {
    use lawn_rt::signal::model::Record;

    let record = std::sync::Arc::new(Record::new());
    let mut listener = record.listen();
    let sender = {
        let record = record.clone();
        thread::spawn(move || {
            record.raise();
            record.broadcast();
        })
    };
    let signal = Signal::new();
    while !record.poll(&mut listener, &signal.waker()) {
        signal.wait();
    }
    sender.join().unwrap();
    // Heard once: nothing more until the next signal.
    assert!(!record.poll(&mut listener, &signal.waker()));
}

/// Model 21c, a second hand-off to the thread the first left behind, as
/// the runtime is dropped: a one-worker runtime's task calls
/// `block_in_place` twice (yielding between), so the second hand-off
/// finds the first's old thread waiting as a spare, or starts a thread if
/// it is not back yet; meanwhile the main thread drops the runtime. The
/// drop returns with every thread joined (a spare the shutdown did not
/// wake would wait forever: planted bug `spare_wake`, a deadlock), and the
/// task gave its output or was cancelled before its end.
pub fn block_in_place_twice_vs_drop() {
    let rt = runtime(Builder::new_multi_thread().worker_threads(1));
    let ran = std::sync::Arc::new(AtomicBool::new(false));
    let task = {
        let ran = ran.clone();
        rt.spawn(async move {
            lawn_rt::task::block_in_place(|| ());
            lawn_rt::task::yield_now().await;
            lawn_rt::task::block_in_place(|| ());
            ran.store(true, SeqCst);
            6
        })
    };
    drop(rt);
    let mut task = pin!(task);
    match poll(task.as_mut(), Waker::noop()) {
        Poll::Ready(result) => assert_output_or_cancelled(result, 6, &ran, "the task"),
        Poll::Pending => panic!("a task of a runtime that was dropped is still pending"),
    }
}
