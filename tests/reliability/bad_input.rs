//! Bad inputs: an error or a panic that says what is wrong.

use super::*;

/// Fails the test (naming `what`) unless `f` panics with a message that
/// starts with `lawn_rt: ` and contains `expected`. The panic is not
/// printed (see [`catch_panic_site`]).
#[track_caller]
fn assert_panic_says<R>(expected: &str, what: &str, f: impl FnOnce() -> R) {
    let site = catch_panic_site(what, f);
    assert!(
        site.message.starts_with("lawn_rt: ") && site.message.contains(expected),
        "{what}: panic message {:?} does not say {expected:?}",
        site.message
    );
}

/// A bare `Driver` refuses an impossible resolution with an `InvalidInput`
/// error naming the range and the value, and `advance` on a running clock
/// panics saying to pause it first.
#[test]
fn a_bare_driver_rejects_bad_resolutions_and_advance_on_a_running_clock() {
    let _shared = shared();
    for (resolution, shown) in [
        (Duration::ZERO, "0ns"),
        (secs(1) + Duration::from_nanos(1), "1.000000001s"),
        (Duration::MAX, "18446744073709551615"),
    ] {
        let err = Driver::with_resolution(resolution).expect_err("an impossible resolution");
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        let message = err.to_string();
        assert!(
            message.starts_with("lawn_rt: ")
                && message.contains("between 1 ns and 1 s")
                && message.contains(shown),
            "{resolution:?}: {message:?}"
        );
    }
    for edge in [Duration::from_nanos(1), secs(1)] {
        assert!(Driver::with_resolution(edge).is_ok(), "{edge:?} is allowed");
    }

    let driver = Driver::new();
    let needs_pause = "`Driver::advance` needs a paused clock; call `Driver::pause` first";
    assert_panic_says(needs_pause, "advance on a running clock", || {
        driver.advance(ms(1))
    });
    driver.pause();
    assert_eq!(driver.advance(ms(1)), 0);
    driver.resume();
    assert_panic_says(needs_pause, "advance after resume", || {
        driver.advance(ms(1))
    });
    // Resuming a running clock and pausing a paused one do nothing.
    driver.resume();
    driver.pause();
    driver.pause();
    assert!(driver.is_paused());
}

/// `TimerSlack::new` with a zero divisor panics saying why; a huge cap is
/// clamped (to the largest level, 1 ms), not rejected, and a runtime built
/// with it keeps time.
#[test]
fn timer_slack_rejects_a_zero_divisor_and_clamps_huge_caps() {
    let _shared = shared();
    assert_panic_says(
        "`TimerSlack::new` needs a nonzero divisor",
        "TimerSlack::new(0, ..)",
        || TimerSlack::new(0, ms(1)),
    );
    let huge = TimerSlack::new(1, Duration::MAX);
    assert_eq!(huge.slack_for(HOUR), ms(1));
    assert_eq!(huge.slack_for(Duration::MAX), ms(1));
    let rt = Builder::new_current_thread()
        .enable_all()
        .timer_slack(huge)
        .build()
        .expect("a huge cap is clamped");
    rt.block_on(async {
        let deadline = Instant::now() + ms(2);
        sleep_until(deadline).await;
        assert!(Instant::now() >= deadline, "woke early");
    });
}

/// Zero worker threads or zero blocking threads panic where they are set
/// (the caller's file and line, as tokio's `#[track_caller]` does), with
/// tokio's words first, on either flavor; `build()` never sees them.
#[test]
fn zero_worker_or_blocking_threads_panic_at_the_callers_line_with_tokios_words() {
    type Setting = fn(&mut Builder) -> &mut Builder;
    let cases: [(Setting, &str); 2] = [
        (|b| b.worker_threads(0), "Worker threads cannot be set to 0"),
        (
            |b| b.max_blocking_threads(0),
            "Max blocking threads cannot be set to 0",
        ),
    ];
    for (setting, words) in cases {
        for mut builder in [Builder::new_multi_thread(), Builder::new_current_thread()] {
            let (location, message) = caught_panic(|| {
                setting(&mut builder);
            });
            assert!(message.starts_with(words), "{message:?}");
            assert!(message.contains("(lawn_rt: "), "{message:?}");
            assert_eq!(location, file!(), "{message}");
        }
    }
}

/// Runs `f`, which must panic: the file the panic points at and its
/// message.
fn caught_panic(f: impl FnOnce()) -> (String, String) {
    type Hook = dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    // Other tests of this binary panic on other threads meanwhile: theirs
    // go to the hook there was.
    let earlier: std::sync::Arc<Hook> = std::panic::take_hook().into();
    let me = std::thread::current().id();
    {
        let (seen, earlier) = (seen.clone(), earlier.clone());
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() == me {
                *seen.lock().unwrap() = info.location().map(|l| l.file().to_string());
            } else {
                earlier(info);
            }
        }));
    }
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(Box::new(move |info| earlier(info)));
    let payload = caught.expect_err("no panic");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    let file = seen.lock().unwrap().take().unwrap_or_default();
    (file, message)
}

/// The multi-thread flavor rejects every impossible setting the
/// current-thread one does, with an `InvalidInput` error naming the
/// setting, and never panics in `build()`.
#[test]
fn the_multi_thread_builder_rejects_bad_settings_with_errors_naming_them() {
    let _shared = shared();
    type Setting = fn(&mut Builder) -> &mut Builder;
    let cases: [(Setting, &str); 3] = [
        (
            |b| b.timer_resolution(Duration::ZERO),
            "timer resolution must be between 1 ns and 1 s",
        ),
        (
            |b| b.timer_resolution(secs(2)),
            "timer resolution must be between 1 ns and 1 s",
        ),
        (
            |b| b.thread_name("a\0b"),
            "`thread_name` must not contain a NUL byte",
        ),
    ];
    for (setting, expected) in cases {
        let mut builder = Builder::new_multi_thread();
        builder.enable_all().worker_threads(1);
        setting(&mut builder);
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.build()));
        let err = built
            .unwrap_or_else(|_| panic!("`build()` panicked ({expected})"))
            .expect_err(expected);
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(expected), "{err} ({expected})");
    }
    // `start_paused` without time: the missing driver is named first.
    let err = Builder::new_multi_thread()
        .enable_io()
        .start_paused(true)
        .build()
        .expect_err("start_paused without time");
    assert!(err.to_string().contains("needs the time driver"), "{err}");
}

/// `Instant -= d` before the earliest representable instant panics with
/// the hint to use `checked_sub` (as `Instant - d` does), while
/// `Instant + Duration::MAX` clamps to the far future instead.
#[test]
fn instant_arithmetic_out_of_range_panics_with_a_hint_or_clamps() {
    let _shared = shared();
    assert_panic_says(
        "is before the earliest representable instant; use `Instant::checked_sub`",
        "Instant -= Duration::MAX",
        || {
            let mut at = Instant::now();
            at -= Duration::MAX;
            at
        },
    );
    let now = Instant::now();
    let far = now + Duration::MAX;
    assert!(far > now + secs(86_400 * 365 * 29), "{:?}", far - now);
    let mut also = now;
    also += Duration::MAX;
    assert_eq!(also, far);
}

/// Addresses that name no socket are an `InvalidInput` error saying so,
/// not a panic and not a hang; a malformed address string is an error too;
/// operations that need a connected UDP socket fail with an error.
#[test]
fn addresses_that_name_nothing_are_errors_not_panics() {
    let _shared = shared();
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    watchdog("bad addresses", secs(30), move || {
        rt.block_on(async {
            let none: &[SocketAddr] = &[];
            let no_address = "the address resolved to no socket address";
            let assert_none = |err: std::io::Error, what: &str| {
                assert_eq!(err.kind(), ErrorKind::InvalidInput, "{what}: {err}");
                assert!(err.to_string().contains(no_address), "{what}: {err}");
            };
            assert_none(TcpListener::bind(none).await.unwrap_err(), "tcp bind");
            assert_none(TcpStream::connect(none).await.unwrap_err(), "tcp connect");
            assert_none(UdpSocket::bind(none).await.unwrap_err(), "udp bind");
            let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            assert_none(udp.send_to(b"x", none).await.unwrap_err(), "send_to");
            assert_none(udp.connect(none).await.unwrap_err(), "udp connect");

            // No port: std's parser rejects it (looked up off-thread).
            let err = TcpListener::bind("127.0.0.1").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");

            // Unconnected UDP: errors, not panics.
            assert_eq!(udp.peer_addr().unwrap_err().kind(), ErrorKind::NotConnected);
            assert!(
                udp.send(b"x").await.is_err(),
                "send on an unconnected socket"
            );
        })
    });
}
