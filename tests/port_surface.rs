//! A port is a rename: `tests/port/surface.rs` reaches for what a tokio
//! service uses (tasks, time, sync, the macros, TCP, UDP, Unix sockets,
//! files, child processes, signals) through `rt::`, and is built twice,
//! against tokio and against lawn_rt. Both builds must compile, and each
//! function must tell the same story on both runtimes.

mod on_lawn_rt {
    #![allow(dead_code)]
    use lawn_rt as rt;
    include!("port/surface.rs");
}

mod on_tokio {
    #![allow(dead_code)]
    use tokio as rt;
    include!("port/surface.rs");
}

/// A directory of its own for one run of one side.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("port_surface_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the same function on both runtimes and compares the transcripts.
macro_rules! same_story {
    ($name:ident, |$dir:ident| $call:ident $(($arg:expr))?) => {
        #[test]
        fn $name() {
            let lawn = {
                let $dir = scratch(concat!(stringify!($name), "_lawn_rt"));
                let story = on_lawn_rt::runtime().block_on(on_lawn_rt::$call($($arg)?));
                std::fs::remove_dir_all(&$dir).unwrap();
                story
            };
            let tokio = {
                let $dir = scratch(concat!(stringify!($name), "_tokio"));
                let story = on_tokio::runtime().block_on(on_tokio::$call($($arg)?));
                std::fs::remove_dir_all(&$dir).unwrap();
                story
            };
            assert_eq!(lawn, tokio, "lawn_rt's story (left) differs from tokio's (right)");
            assert!(!lawn.is_empty());
        }
    };
}

same_story!(tasks_behave_alike, |dir| tasks);
same_story!(time_behaves_alike, |dir| time);
same_story!(sync_behaves_alike, |dir| sync);
same_story!(macros_behave_alike, |dir| macros);
same_story!(tcp_behaves_alike, |dir| tcp);
same_story!(sockets_behave_alike, |dir| sockets(&dir));
same_story!(files_and_processes_behave_alike, |dir| files_and_processes(
    &dir
));
same_story!(signals_behave_alike, |dir| signals);
same_story!(more_tasks_and_time_behave_alike, |dir| more_tasks_and_time);
same_story!(more_io_behaves_alike, |dir| more_io(&dir));
same_story!(more_sync_behaves_alike, |dir| more_sync);
same_story!(priority_data_behaves_alike, |dir| priority_data);
same_story!(pipes_behave_alike, |dir| pipes);
same_story!(tokio_odds_behave_alike, |dir| tokio_odds(&dir));
same_story!(buffer_calls_behave_alike, |dir| buffer_calls(&dir));
same_story!(more_sockets_behave_alike, |dir| more_sockets(&dir));

#[test]
fn named_entry_points_behave_alike() {
    assert_eq!(on_lawn_rt::a_named_entry_point(), Some("entry".to_owned()));
    assert_eq!(on_tokio::a_named_entry_point(), Some("entry".to_owned()));
}

#[test]
fn local_runtimes_behave_alike() {
    assert_eq!(on_lawn_rt::local_runtime(), on_tokio::local_runtime());
}

#[test]
fn runtimes_behave_alike() {
    assert_eq!(on_lawn_rt::runtimes(), on_tokio::runtimes());
}

#[test]
fn paused_clocks_behave_alike() {
    let paused = |story: fn() -> String| story();
    let lawn = paused(|| {
        lawn_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(on_lawn_rt::paused_clock())
    });
    let tokio = paused(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(on_tokio::paused_clock())
    });
    assert_eq!(lawn, tokio);
}

same_story!(server_loops_behave_alike, |dir| server_loop);
same_story!(supervisors_behave_alike, |dir| supervisor(&dir));
same_story!(proxies_behave_alike, |dir| proxy_and_admin(&dir));
same_story!(odds_and_ends_behave_alike, |dir| odds_and_ends(&dir));
