//! [`Builder`]: how a [`Runtime`] is configured.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use super::blocking;
use super::config::{ThreadHooks, ThreadName, ThreadSpec};
use super::park::Parker;
use super::scheduler::{current, multi, Intervals, Scheduler};
use super::EventCaps;
use super::{Handle, Runtime, RuntimeFlavor as Flavor};
use crate::driver::{check_resolution, Driver, Role, TimerSlack};

/// The runtime's default tick: deadlines round up to a multiple of it.
/// A thousandth of tokio's millisecond, so a short sleep can wake within
/// microseconds of its deadline; how often the park loop wakes is set by
/// the timers' slack ([`TimerSlack`]), not by the tick.
pub const DEFAULT_TIMER_RESOLUTION: Duration = Duration::from_micros(1);

/// [`Builder::max_io_events_per_tick`]'s default, tokio's.
const DEFAULT_MAX_IO_EVENTS_PER_TICK: usize = 1024;

/// Builds a [`Runtime`] with custom settings; like `tokio::runtime::Builder`.
///
/// Impossible settings (a timer resolution of zero or above one second,
/// `start_paused(true)` without the time driver, a thread name with a NUL
/// byte) make [`build`](Builder::build) return an `InvalidInput` error
/// that names the setting; zero worker or blocking threads panic where
/// they are set, as in tokio.
///
/// # Examples
///
/// ```
/// use lawn_rt::runtime::Builder;
/// use lawn_rt::time::{sleep, Duration};
///
/// let rt = Builder::new_current_thread()
///     .enable_all()
///     .timer_resolution(Duration::from_micros(50))
///     .build()
///     .unwrap();
/// rt.block_on(sleep(Duration::from_micros(200)));
///
/// let err = Builder::new_current_thread()
///     .timer_resolution(Duration::ZERO)
///     .build()
///     .unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
/// ```
#[derive(Clone)]
pub struct Builder {
    flavor: Flavor,
    /// `None`: the machine's available parallelism.
    worker_threads: Option<usize>,
    enable_time: bool,
    enable_io: bool,
    timer_resolution: Duration,
    timer_slack: TimerSlack,
    start_paused: bool,
    /// `None`: `lawn-rt-worker` for workers, `lawn-rt-blocking` for the
    /// blocking pool.
    thread_name: Option<ThreadName>,
    thread_stack_size: Option<usize>,
    max_blocking_threads: usize,
    thread_keep_alive: Duration,
    intervals: Intervals,
    max_io_events_per_tick: usize,
    /// `None`: the same as `max_io_events_per_tick`.
    max_io_events_per_busy_tick: Option<usize>,
    /// The runtime's name (`Builder::name`).
    name: Option<std::sync::Arc<str>>,
    hooks: ThreadHooks,
}

impl Builder {
    /// A builder for a runtime that runs every task on the thread that
    /// calls [`Runtime::block_on`]. Neither time nor I/O is enabled until
    /// asked for.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.block_on(async { 7 }), 7);
    /// ```
    pub fn new_current_thread() -> Builder {
        Builder::new(Flavor::CurrentThread)
    }

    /// A builder for a runtime whose tasks run on a pool of worker threads
    /// ([`worker_threads`](Builder::worker_threads) of them, by default one
    /// per CPU), each with its own event loop and its own shard of the
    /// timers; like `tokio::runtime::Builder::new_multi_thread`. Neither
    /// time nor I/O is enabled until asked for.
    ///
    /// Tasks spawned from a worker run there unless an idle worker takes
    /// them; tasks spawned from elsewhere go to a shared queue. A timer
    /// files with the worker that first polls it, so workers never contend
    /// on one timer lock. `time::pause` (feature `test-util`) is not
    /// available (it panics): use a current-thread runtime for tests that
    /// move the clock by hand.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::Builder;
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    /// let sum = rt.block_on(async {
    ///     let tasks: Vec<_> = (0..8u64)
    ///         .map(|i| {
    ///             lawn_rt::spawn(async move {
    ///                 sleep(Duration::from_millis(i)).await;
    ///                 i
    ///             })
    ///         })
    ///         .collect();
    ///     let mut sum = 0;
    ///     for task in tasks {
    ///         sum += task.await.unwrap();
    ///     }
    ///     sum
    /// });
    /// assert_eq!(sum, 28);
    /// ```
    pub fn new_multi_thread() -> Builder {
        Builder::new(Flavor::MultiThread)
    }

    fn new(flavor: Flavor) -> Builder {
        Builder {
            flavor,
            worker_threads: None,
            enable_time: false,
            enable_io: false,
            timer_resolution: DEFAULT_TIMER_RESOLUTION,
            timer_slack: TimerSlack::DEFAULT,
            start_paused: false,
            thread_name: None,
            thread_stack_size: None,
            max_blocking_threads: 64,
            thread_keep_alive: Duration::from_secs(10),
            intervals: Intervals::DEFAULT,
            max_io_events_per_tick: DEFAULT_MAX_IO_EVENTS_PER_TICK,
            max_io_events_per_busy_tick: None,
            name: None,
            hooks: ThreadHooks::default(),
        }
    }

    /// How many worker threads a multi-thread runtime runs (default: the
    /// machine's available parallelism). Ignored by a current-thread runtime.
    ///
    /// # Panics
    ///
    /// If `threads` is 0, at the caller's line, with tokio's words ("Worker
    /// threads cannot be set to 0"), on either flavor as tokio does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(3)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
    /// ```
    #[track_caller]
    pub fn worker_threads(&mut self, threads: usize) -> &mut Builder {
        assert!(
            threads > 0,
            "Worker threads cannot be set to 0 (lawn_rt: a multi-thread runtime needs at least one worker)"
        );
        self.worker_threads = Some(threads);
        self
    }

    /// Enables the time driver: [`sleep`](crate::time::sleep),
    /// [`timeout`](crate::time::timeout) and
    /// [`interval`](crate::time::interval) inside the runtime use it.
    /// Without it they panic there, saying so.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(sleep(Duration::from_millis(1)));
    /// ```
    pub fn enable_time(&mut self) -> &mut Builder {
        self.enable_time = true;
        self
    }

    /// Enables the I/O driver: [`lawn_rt::net`](crate::net)'s sockets
    /// register with the park loop's `mio::Poll` (each worker's, on a
    /// multi-thread runtime). Without it, creating a socket inside the
    /// runtime panics, saying so.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    /// rt.block_on(async {
    ///     let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(socket.local_addr().unwrap().port() > 0);
    /// });
    /// ```
    pub fn enable_io(&mut self) -> &mut Builder {
        self.enable_io = true;
        self
    }

    /// Enables both the time and the I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build();
    /// assert!(rt.is_ok());
    /// ```
    pub fn enable_all(&mut self) -> &mut Builder {
        self.enable_time().enable_io()
    }

    /// The time driver's tick (default [`DEFAULT_TIMER_RESOLUTION`], 1
    /// µs): every deadline is rounded up to a whole tick. Must be within
    /// 1 ns..=1 s, else [`build`](Builder::build) fails. Slack levels finer
    /// than the tick are not used (see [`timer_slack`](Builder::timer_slack)).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::Duration;
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .timer_resolution(Duration::from_millis(1))
    ///     .build();
    /// assert!(rt.is_ok());
    /// ```
    pub fn timer_resolution(&mut self, resolution: Duration) -> &mut Builder {
        self.timer_resolution = resolution;
        self
    }

    /// How late a timer may fire so that it shares a wake-up with its
    /// neighbours: the trade-off between precision and CPU. The default,
    /// [`TimerSlack::DEFAULT`], lets a timer set `ttl` ahead fire up to
    /// `ttl / 4` late, at most 1 ms (tokio's tick), rounded down to one of
    /// 0, 16, 32, 64, 128, 256, 512 µs and 1 ms; so short sleeps are
    /// precise and long timeouts share wake-ups. A timer never fires
    /// early, and a lone timer is woken for at its deadline whatever its
    /// slack. [`TimerSlack::NONE`] wakes for every deadline (most
    /// precise, most wake-ups); [`TimerSlack::new`] sets the divisor and
    /// the cap.
    ///
    /// With the runtime otherwise idle, a timer fires no later than its
    /// deadline (rounded up to the tick) plus
    /// [`slack_for(ttl)`](TimerSlack::slack_for) plus the operating
    /// system's wake-up latency; a busy runtime fires due timers on every
    /// turn of its loop.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::{Builder, TimerSlack};
    /// use lawn_rt::time::Duration;
    ///
    /// // A latency-critical service: a 32nd of the TTL, at most 128 µs.
    /// let rt = Builder::new_current_thread()
    ///     .enable_all()
    ///     .timer_slack(TimerSlack::new(32, Duration::from_micros(128)))
    ///     .build()?;
    /// rt.block_on(lawn_rt::time::sleep(Duration::from_millis(1)));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn timer_slack(&mut self, slack: TimerSlack) -> &mut Builder {
        self.timer_slack = slack;
        self
    }

    /// Starts the runtime with its clock paused (feature `test-util`); see
    /// [`time::pause`](crate::time::pause). Needs the time driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration, Instant};
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .start_paused(true)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     let start = Instant::now();
    ///     sleep(Duration::from_secs(3600)).await; // returns at once
    ///     assert_eq!(start.elapsed(), Duration::from_secs(3600));
    /// });
    /// ```
    #[cfg(feature = "test-util")]
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Builder {
        self.start_paused = start_paused;
        self
    }

    /// The name of the runtime's threads: its workers' and its blocking
    /// pool's (default `lawn-rt-worker` and `lawn-rt-blocking`). Replaces a
    /// [`thread_name_fn`](Builder::thread_name_fn) set before (the later
    /// call wins). A name with a NUL byte makes [`build`](Builder::build)
    /// fail.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .thread_name("my-blocking")
    ///     .build()
    ///     .unwrap();
    /// let name = rt.block_on(rt.spawn_blocking(|| {
    ///     std::thread::current().name().map(str::to_owned)
    /// }));
    /// assert_eq!(name.unwrap().as_deref(), Some("my-blocking"));
    /// ```
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        self.thread_name = Some(ThreadName::Fixed(name.into()));
        self
    }

    /// Names the runtime, for [`Handle::name`](super::Handle::name) (its
    /// threads are named by [`thread_name`](Builder::thread_name)); like
    /// `tokio::runtime::Builder::name`.
    ///
    /// # Panics
    ///
    /// If `name` is empty or only whitespace, at the caller's line.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .name("ingest")
    ///     .build()
    ///     .unwrap();
    /// let name = rt.block_on(async { lawn_rt::runtime::Handle::current().name().map(str::to_owned) });
    /// assert_eq!(name.as_deref(), Some("ingest"));
    /// ```
    #[track_caller]
    pub fn name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        assert!(
            !name.trim().is_empty(),
            "lawn_rt: a runtime's `name` must not be empty"
        );
        self.name = Some(name.into());
        self
    }

    /// Names the runtime's threads with what `f` returns: called once for
    /// each thread the runtime starts, just before it starts it, on the
    /// thread that starts it; like `tokio::runtime::Builder::thread_name_fn`.
    ///
    /// Those threads are those of [`thread_name`](Builder::thread_name): a
    /// multi-thread runtime's workers (named as [`build`](Builder::build)
    /// starts them), a thread that takes a worker over when a task calls
    /// [`block_in_place`](crate::task::block_in_place), and the blocking
    /// pool's threads of either flavor. `thread_name` and `thread_name_fn`
    /// set the same thing: the later call wins.
    ///
    /// `f` may run while the runtime holds some of its own locks: it
    /// should make a name and nothing else (spawning onto the runtime from
    /// it may deadlock).
    ///
    /// # Errors
    ///
    /// A name `f` returns with a NUL byte in it (which no thread can be
    /// given), or a panic in `f` (reported by the panic hook), fails the
    /// start of that thread with an [`io::Error`] (`InvalidInput` for the
    /// NUL byte, naming it): then [`build`](Builder::build) of a
    /// multi-thread runtime returns it, a
    /// [`spawn_blocking`](crate::task::spawn_blocking) that finds no pool
    /// thread running panics with it (as for any failure to start a
    /// thread; with a thread running, the task waits for it), and a
    /// `block_in_place` hand-off keeps the worker on its thread (the
    /// closure runs there, blocking that worker). A fixed
    /// [`thread_name`](Builder::thread_name) with a NUL byte is refused by
    /// `build` instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// static NEXT: AtomicUsize = AtomicUsize::new(0);
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .thread_name_fn(|| format!("svc-{}", NEXT.fetch_add(1, Ordering::SeqCst)))
    ///     .build()
    ///     .unwrap();
    /// let name = rt.block_on(rt.spawn(async {
    ///     std::thread::current().name().map(str::to_owned)
    /// }));
    /// let name = name.unwrap().unwrap();
    /// assert!(name == "svc-0" || name == "svc-1", "{name}");
    ///
    /// // A name no thread can have: the worker cannot start.
    /// let err = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .thread_name_fn(|| "nul\0byte".to_string())
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// ```
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name = Some(ThreadName::Made(Arc::new(f)));
        self
    }

    /// The stack size of the runtime's threads, in bytes (default: std's).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .thread_stack_size(4 << 20)
    ///     .build();
    /// assert!(rt.is_ok());
    /// ```
    pub fn thread_stack_size(&mut self, bytes: usize) -> &mut Builder {
        self.thread_stack_size = Some(bytes);
        self
    }

    /// The most threads [`spawn_blocking`](crate::task::spawn_blocking) runs
    /// at once (default 64); more tasks wait in a queue.
    ///
    /// # Panics
    ///
    /// If `threads` is 0, at the caller's line, with tokio's words ("Max
    /// blocking threads cannot be set to 0").
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .max_blocking_threads(2)
    ///     .build();
    /// assert!(rt.is_ok());
    /// ```
    #[track_caller]
    pub fn max_blocking_threads(&mut self, threads: usize) -> &mut Builder {
        assert!(
            threads > 0,
            "Max blocking threads cannot be set to 0 (lawn_rt: `spawn_blocking` needs at least one thread)"
        );
        self.max_blocking_threads = threads;
        self
    }

    /// How long an idle blocking thread waits for work before it exits
    /// (default 10 s).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::Duration;
    ///
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .thread_keep_alive(Duration::from_millis(100))
    ///     .build();
    /// assert!(rt.is_ok());
    /// ```
    pub fn thread_keep_alive(&mut self, keep_alive: Duration) -> &mut Builder {
        self.thread_keep_alive = keep_alive;
        self
    }

    /// How many tasks a park loop runs between two looks at its timers
    /// and I/O events (default 61, as tokio's); like
    /// `tokio::runtime::Builder::event_interval`.
    ///
    /// A tick is one poll of a task. After `ticks` of them in a row (or
    /// sooner, when it runs out of tasks), a thread polls its `mio::Poll`
    /// without blocking, fires its due timers and lets the tasks that
    /// yielded run again. Lower: I/O, timers and yielding tasks are seen
    /// sooner while tasks keep the thread busy, for a system call more
    /// often. Higher: fewer system calls when tasks finish their polls
    /// quickly. Also the most tasks a multi-thread worker takes from the
    /// shared queue at once.
    ///
    /// # Panics
    ///
    /// If `ticks` is 0 (a loop that never looks at its events would never
    /// see a timer or a socket), as tokio's does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_all()
    ///     .event_interval(31)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(lawn_rt::time::sleep(std::time::Duration::from_millis(1)));
    /// ```
    #[track_caller]
    pub fn event_interval(&mut self, ticks: u32) -> &mut Builder {
        assert!(
            ticks > 0,
            "event_interval must be greater than 0 (lawn_rt: a scheduler that never looks \
             at its timers and I/O would never see them)"
        );
        self.intervals.event = ticks;
        self
    }

    /// How often a park loop takes its next task from the shared queue
    /// first (default 31, for both flavors); like
    /// `tokio::runtime::Builder::global_queue_interval`.
    ///
    /// A thread that runs tasks has a queue of its own (tasks spawned or
    /// woken on it) and the runtime's shared queue (tasks spawned or woken
    /// from other threads). It takes its own first, except on every
    /// `ticks`-th task (a tick is one poll of a task), when it looks at
    /// the shared queue first. `1` looks at the shared queue first every
    /// time: tasks from elsewhere run before those already queued here.
    /// Lower: fairer to tasks from other threads, for a lock taken more
    /// often; higher: already-claimed work goes first.
    ///
    /// # Panics
    ///
    /// If `ticks` is 0, as tokio's does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(1)
    ///     .global_queue_interval(1)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(rt.block_on(rt.spawn(async { 3 })).unwrap(), 3);
    /// ```
    #[track_caller]
    pub fn global_queue_interval(&mut self, ticks: u32) -> &mut Builder {
        assert!(ticks > 0, "global_queue_interval must be greater than 0");
        self.intervals.global_queue = ticks;
        self
    }

    /// The most I/O events a park loop takes from its `mio::Poll` at once
    /// (default 1024, as tokio's); like
    /// `tokio::runtime::Builder::max_io_events_per_tick`.
    ///
    /// Sockets are registered edge-triggered: the events of sockets that
    /// did not fit are returned by the next poll, so every socket is still
    /// served, in later turns of the loop. Smaller: shorter turns, less
    /// memory per thread (each slot is 12 bytes); larger: fewer system
    /// calls when many sockets are ready at once.
    ///
    /// # Panics
    ///
    /// If `capacity` is 0, as tokio's does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(64)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     let socket = lawn_rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.send_to(b"hi", socket.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [0; 2];
    ///     assert_eq!(socket.recv_from(&mut buf).await.unwrap().0, 2);
    /// });
    /// ```
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(
            capacity > 0,
            "max_io_events_per_tick must be non-zero (lawn_rt: greater than 0)"
        );
        self.max_io_events_per_tick = capacity;
        self
    }

    /// The most I/O events a park loop takes at once when it polls without
    /// waiting: when its thread still has tasks to run, or a timer already
    /// due (default: [`max_io_events_per_tick`](Builder::max_io_events_per_tick)'s
    /// value); like `tokio::runtime::Builder::max_io_events_per_busy_tick`.
    ///
    /// A busy thread polls every
    /// [`event_interval`](Builder::event_interval) tasks, and the tasks a
    /// large batch of events wakes all queue behind the work it already
    /// has. A small busy cap leaves the rest in the kernel until the
    /// thread is idle, or for its next busy poll: sockets are registered
    /// edge-triggered, and an event not taken stays on epoll's ready list,
    /// so none is lost.
    ///
    /// # Panics
    ///
    /// If `capacity` is 0, as tokio's does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(128)
    ///     .max_io_events_per_busy_tick(8)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     let socket = lawn_rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.send_to(b"hi", socket.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [0; 2];
    ///     assert_eq!(socket.recv_from(&mut buf).await.unwrap().0, 2);
    /// });
    /// ```
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(
            capacity > 0,
            "max_io_events_per_busy_tick must be non-zero (lawn_rt: greater than 0)"
        );
        self.max_io_events_per_busy_tick = Some(capacity);
        self
    }

    /// The event caps of each park loop (see `Parker::new`).
    fn event_caps(&self) -> EventCaps {
        EventCaps {
            idle: self.max_io_events_per_tick,
            busy: self
                .max_io_events_per_busy_tick
                .unwrap_or(self.max_io_events_per_tick),
        }
    }

    /// Runs `f` on every thread the runtime starts, on that thread, before
    /// the thread does any work; like
    /// `tokio::runtime::Builder::on_thread_start`.
    ///
    /// Those threads are a multi-thread runtime's workers (also a thread
    /// that takes a worker over when a task calls
    /// [`block_in_place`](crate::task::block_in_place)) and the blocking
    /// pool's threads, of either flavor; not the thread that calls
    /// [`block_on`](Runtime::block_on). `f` runs with the runtime entered
    /// ([`Handle::current`] finds it). For bookkeeping: naming, pinning,
    /// counting threads, setting up a thread-local. Calling this again
    /// replaces the earlier `f`.
    ///
    /// A panic in `f` is reported by the panic hook, then ignored: the
    /// thread goes on. (In tokio it ends the thread, which leaves its
    /// runtime short of that thread.)
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counter = started.clone();
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .on_thread_start(move || {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// // A current-thread runtime starts threads only for `spawn_blocking`.
    /// assert_eq!(started.load(Ordering::SeqCst), 0);
    /// rt.block_on(rt.spawn_blocking(|| ())).unwrap();
    /// assert_eq!(started.load(Ordering::SeqCst), 1);
    /// ```
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.start = Some(Arc::new(f));
        self
    }

    /// Runs `f` on every thread the runtime starts, on that thread, once it
    /// has done its last work and just before it exits; like
    /// `tokio::runtime::Builder::on_thread_stop`.
    ///
    /// The threads are those of
    /// [`on_thread_start`](Builder::on_thread_start): each one that ran
    /// the start hook runs this once, with the runtime entered. A blocking
    /// thread stops when it has idled for
    /// [`thread_keep_alive`](Builder::thread_keep_alive) or at the
    /// runtime's shutdown; workers stop at the shutdown. Dropping the
    /// runtime returns once every one of its threads has run this (after
    /// [`Runtime::shutdown_timeout`], those still busy run it when they
    /// finish). Calling this again replaces the earlier `f`; a panic in it
    /// is reported, then ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let stopped = Arc::new(AtomicUsize::new(0));
    /// let counter = stopped.clone();
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .on_thread_stop(move || {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(rt.spawn_blocking(|| ())).unwrap();
    /// drop(rt);
    /// // Two workers and one blocking thread.
    /// assert_eq!(stopped.load(Ordering::SeqCst), 3);
    /// ```
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.stop = Some(Arc::new(f));
        self
    }

    /// Runs `f` each time a runtime thread runs out of work, just before
    /// it parks; like `tokio::runtime::Builder::on_thread_park`.
    ///
    /// The thread is a multi-thread runtime's worker, or the thread that
    /// drives a current-thread runtime (the one in
    /// [`block_on`](Runtime::block_on)); `f` runs there, with the runtime
    /// entered, so it may [`spawn`](crate::spawn): the thread looks at its
    /// queues again after `f`, and runs that task rather than blocking.
    /// Only a park for want of work counts: a busy thread's regular look
    /// at its timers and I/O (see [`event_interval`](Builder::event_interval))
    /// calls no hook. Each call is followed by one of
    /// [`on_thread_unpark`](Builder::on_thread_unpark)'s `f`, on the same
    /// thread, once the park is over, also when work came in meanwhile and
    /// the thread did not block.
    ///
    /// For bookkeeping (idle time, metrics) or work that should start only
    /// when the runtime is idle: `f` delays every park and so every wake-up
    /// of an idle runtime. Calling this again replaces the earlier `f`; a
    /// panic in it is reported by the panic hook, then ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let parks = Arc::new(AtomicUsize::new(0));
    /// let counter = parks.clone();
    /// let rt = lawn_rt::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .on_thread_park(move || {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// // Nothing to do until the timer: the thread parks.
    /// rt.block_on(sleep(Duration::from_millis(5)));
    /// assert!(parks.load(Ordering::SeqCst) >= 1);
    /// ```
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.park = Some(Arc::new(f));
        self
    }

    /// Runs `f` each time a runtime thread's park is over, just after it
    /// wakes, before it runs tasks again; like
    /// `tokio::runtime::Builder::on_thread_unpark`.
    ///
    /// It pairs with [`on_thread_park`](Builder::on_thread_park): the same
    /// threads, the runtime entered, one call after each park (whether the
    /// thread blocked or found work as it was about to), once the events
    /// and timers the park brought have woken their tasks. So after a
    /// runtime is dropped, the two have run as often. Calling this again
    /// replaces the earlier `f`; a panic in it is reported, then ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let parks = Arc::new(AtomicUsize::new(0));
    /// let unparks = Arc::new(AtomicUsize::new(0));
    /// let (p, u) = (parks.clone(), unparks.clone());
    /// let rt = lawn_rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .enable_time()
    ///     .on_thread_park(move || {
    ///         p.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .on_thread_unpark(move || {
    ///         u.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(rt.spawn(lawn_rt::time::sleep(std::time::Duration::from_millis(5))))
    ///     .unwrap();
    /// drop(rt); // wakes every parked worker
    /// assert!(parks.load(Ordering::SeqCst) >= 1);
    /// assert_eq!(unparks.load(Ordering::SeqCst), parks.load(Ordering::SeqCst));
    /// ```
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.unpark = Some(Arc::new(f));
        self
    }

    /// Builds a [`LocalRuntime`](super::LocalRuntime): a current-thread
    /// runtime whose tasks need not be `Send`; like
    /// `tokio::runtime::Builder::build_local`.
    ///
    /// # Errors
    ///
    /// As [`build`](Builder::build).
    ///
    /// # Panics
    ///
    /// On a multi-thread builder (at the caller's line), as tokio's.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::runtime::{Builder, LocalOptions};
    ///
    /// let rt = Builder::new_current_thread().enable_all().build_local(LocalOptions::default())?;
    /// let task = rt.spawn_local(async { std::rc::Rc::new("local") });
    /// assert_eq!(*rt.block_on(task).unwrap(), "local");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn build_local(&mut self, options: super::LocalOptions) -> io::Result<super::LocalRuntime> {
        let _ = options;
        assert!(
            self.flavor == Flavor::CurrentThread,
            "lawn_rt: `Builder::build_local` needs `Builder::new_current_thread()`; \
             a multi_thread runtime is not supported for a LocalRuntime"
        );
        self.build().map(super::LocalRuntime::from_runtime)
    }

    /// Builds the runtime: its event loop (an epoll instance, an eventfd
    /// and, on Linux, a timerfd), its timer driver if enabled, and its
    /// blocking pool (no thread until first used).
    ///
    /// # Errors
    ///
    /// `InvalidInput` for an impossible setting (see [`Builder`]); any
    /// error the OS gives when creating the event loop.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Builder::new_current_thread().enable_all().build()?;
    /// # drop(rt);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn build(&mut self) -> io::Result<Runtime> {
        self.check()?;
        let blocking = blocking::Pool::new(
            self.max_blocking_threads,
            self.thread_keep_alive,
            self.spec("lawn-rt-blocking"),
            self.hooks.clone(),
        );
        let inner = match self.flavor {
            Flavor::CurrentThread => self.build_current_thread(blocking)?,
            Flavor::MultiThread => multi::MultiThread::start(
                multi::Config {
                    workers: self.worker_threads.unwrap_or_else(default_workers),
                    enable_io: self.enable_io,
                    time: self
                        .enable_time
                        .then_some((self.timer_resolution, self.timer_slack)),
                    threads: self.spec("lawn-rt-worker"),
                    hooks: self.hooks.clone(),
                    intervals: self.intervals,
                    max_io_events: self.event_caps(),
                    name: self.name.clone(),
                },
                blocking,
            )?,
        };
        Ok(Runtime::from_handle(Handle { inner }))
    }

    fn build_current_thread(&self, blocking: blocking::Pool) -> io::Result<Scheduler> {
        let (parker, unpark, io) = Parker::new(self.enable_io, self.event_caps())?;
        let time = self.enable_time.then(|| {
            let unpark = unpark.clone();
            let driver = Driver::for_runtime(
                Role::CurrentThread,
                self.timer_resolution,
                self.timer_slack,
                Box::new(move || unpark.unpark()),
            );
            if self.start_paused {
                driver.pause();
            }
            driver
        });
        let inner = current::CurrentThread::new(
            parker,
            unpark,
            time,
            blocking,
            io,
            self.intervals,
            self.hooks.clone(),
        )
        .named(self.name.clone());
        Ok(Scheduler::Current(Arc::new(inner)))
    }

    /// How the runtime's threads are started; `default`: their name if
    /// none was set.
    fn spec(&self, default: &str) -> ThreadSpec {
        ThreadSpec::new(self.thread_name.clone(), default, self.thread_stack_size)
    }

    fn check(&self) -> io::Result<()> {
        let invalid = |message: String| Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        check_resolution(self.timer_resolution)?;
        if self.start_paused && !self.enable_time {
            return invalid(
                "lawn_rt: `start_paused(true)` needs the time driver; call `enable_time()` or \
                 `enable_all()` too"
                    .into(),
            );
        }
        if self.flavor == Flavor::MultiThread && self.start_paused {
            return invalid(
                "lawn_rt: `start_paused(true)` needs a current_thread runtime: a \
                 multi_thread runtime's clock cannot be paused"
                    .into(),
            );
        }
        self.thread_name.as_ref().map_or(Ok(()), ThreadName::check)
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("flavor", &self.flavor)
            .field("worker_threads", &self.worker_threads)
            .field("enable_time", &self.enable_time)
            .field("enable_io", &self.enable_io)
            .field("timer_resolution", &self.timer_resolution)
            .field("timer_slack", &self.timer_slack)
            .field("start_paused", &self.start_paused)
            .field("thread_name", &self.thread_name)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("thread_keep_alive", &self.thread_keep_alive)
            .field("event_interval", &self.intervals.event)
            .field("global_queue_interval", &self.intervals.global_queue)
            .field("max_io_events_per_tick", &self.max_io_events_per_tick)
            .field(
                "max_io_events_per_busy_tick",
                &self.max_io_events_per_busy_tick,
            )
            .field("name", &self.name)
            .field("on_thread_start", &self.hooks.start.is_some())
            .field("on_thread_stop", &self.hooks.stop.is_some())
            .field("on_thread_park", &self.hooks.park.is_some())
            .field("on_thread_unpark", &self.hooks.unpark.is_some())
            .finish()
    }
}

/// One worker per CPU the process may use (1 if that cannot be told).
fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
