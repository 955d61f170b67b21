//! The idle-timeout pattern on real sockets: a server gives each
//! connection one `Sleep`, `reset` on every read, and closes the
//! connection when it fires. With 200 connections, half of them chatting
//! and half silent, exactly the silent ones are closed, none before its
//! idle time has passed since its last input.
//!
//! This test runs on the real clock (sockets and a paused clock do not
//! mix: an idle paused runtime would jump to the next timer while data is
//! in flight). Its margins are wide: chatty clients write every 50 ms
//! against a 1 s idle timeout.

mod common;

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use common::net::{run, within};
use futures::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use lawn_rt::net::{TcpListener, TcpStream};
use lawn_rt::time::{sleep, sleep_until, Instant};

const IDLE: Duration = Duration::from_secs(1);
const CHAT_EVERY: Duration = Duration::from_millis(50);
const CHAT_FOR: Duration = Duration::from_millis(1_500);
const CONNECTIONS: usize = 200;

/// How a served connection ended.
#[derive(Debug, PartialEq)]
enum End {
    /// Closed by the server after `IDLE` without input; how long after
    /// the last input.
    Idle(Duration),
    /// The client closed it.
    Eof,
}

/// Echoes `stream` until end of file, or until `IDLE` passes without
/// input: one sleep, reset on every read. The read is polled first, so
/// input that is already there wins over a timer that is also due.
async fn serve(mut stream: TcpStream) -> std::io::Result<End> {
    let mut last_input = Instant::now();
    let mut idle = pin!(sleep_until(last_input + IDLE));
    let mut buf = [0; 256];
    loop {
        let read = poll_fn(|cx| {
            if let Poll::Ready(read) = std::pin::Pin::new(&mut stream).poll_read(cx, &mut buf) {
                return Poll::Ready(Some(read));
            }
            idle.as_mut().poll(cx).map(|()| None)
        })
        .await;
        match read {
            None => return Ok(End::Idle(last_input.elapsed())),
            Some(read) => match read? {
                0 => return Ok(End::Eof),
                n => {
                    last_input = Instant::now();
                    idle.as_mut().reset(last_input + IDLE);
                    stream.write_all(&buf[..n]).await?;
                }
            },
        }
    }
}

/// A chatty client: writes and reads back a byte every `CHAT_EVERY` for
/// `CHAT_FOR`; any close by the server before that is a failure.
async fn chat(mut stream: TcpStream) -> Result<(), String> {
    let start = Instant::now();
    while start.elapsed() < CHAT_FOR {
        stream.write_all(b"x").await.map_err(|e| e.to_string())?;
        let mut back = [0; 1];
        match stream.read(&mut back).await {
            Ok(1) => {}
            other => return Err(format!("closed after {:?}: {other:?}", start.elapsed())),
        }
        sleep(CHAT_EVERY).await;
    }
    Ok(())
}

/// A silent client: sends one byte, then waits for the server to close;
/// returns how long after it started its last write that happened.
///
/// The clock is read before the write: the server cannot see the byte
/// before the write starts, but it can read it (and start its idle time)
/// while this thread is still between the write and a clock read after
/// it, so only the earlier read is a sound lower bound.
async fn stay_silent(mut stream: TcpStream) -> std::io::Result<Duration> {
    let wrote = Instant::now();
    stream.write_all(b"x").await?;
    let mut back = [0; 1];
    stream.read_exact(&mut back).await?;
    assert_eq!(
        stream.read(&mut back).await?,
        0,
        "expected the server to close"
    );
    Ok(wrote.elapsed())
}

#[test]
fn idle_connections_are_closed_and_chatty_ones_are_not() {
    run("idle timeouts", || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let ends = Arc::new(Mutex::new(Vec::new()));
        let server = {
            let ends = ends.clone();
            lawn_rt::spawn(async move {
                for _ in 0..CONNECTIONS {
                    let (stream, _) = listener.accept().await.unwrap();
                    let ends = ends.clone();
                    lawn_rt::spawn(async move {
                        let end = serve(stream).await;
                        ends.lock().unwrap().push(end.map_err(|e| e.to_string()));
                    });
                }
            })
        };
        let clients: Vec<_> = (0..CONNECTIONS)
            .map(|i| {
                lawn_rt::spawn(async move {
                    let stream = TcpStream::connect(addr).await.unwrap();
                    match i % 2 {
                        0 => chat(stream).await.map(|()| None),
                        _ => Ok(Some(stay_silent(stream).await.unwrap())),
                    }
                })
            })
            .collect();
        within("accepts", server).await.unwrap();

        let mut silent_waits = Vec::new();
        for (i, client) in clients.into_iter().enumerate() {
            match within("client", client).await.unwrap() {
                Ok(Some(waited)) => silent_waits.push(waited),
                Ok(None) => {}
                Err(why) => panic!("chatty connection {i} was closed: {why}"),
            }
        }
        assert_eq!(silent_waits.len(), CONNECTIONS / 2);
        for waited in &silent_waits {
            assert!(
                *waited >= IDLE,
                "closed {waited:?} after the last input: early"
            );
        }

        // The server's view: every connection ended, half by the timer.
        within("all served", async {
            while ends.lock().unwrap().len() < CONNECTIONS {
                sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        let ends = ends.lock().unwrap();
        let idle: Vec<Duration> = ends
            .iter()
            .filter_map(|end| match end {
                Ok(End::Idle(after)) => Some(*after),
                _ => None,
            })
            .collect();
        let eofs = ends.iter().filter(|end| **end == Ok(End::Eof)).count();
        assert_eq!(
            (idle.len(), eofs),
            (CONNECTIONS / 2, CONNECTIONS / 2),
            "{ends:?}"
        );
        assert!(
            idle.iter().all(|after| *after >= IDLE),
            "an idle close came early"
        );
    });
}
