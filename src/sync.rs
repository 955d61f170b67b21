//! Channels and locks for tasks: tokio's `sync` module, re-exported
//! (feature `sync`, default), so `lawn_rt::sync::mpsc` is
//! `tokio::sync::mpsc`.
//!
//! tokio's synchronization primitives need no runtime: their futures are
//! woken by the other side, whatever executor polls them. They are
//! re-exported rather than rewritten because they are the ones a tokio
//! service already uses, and they work on a `lawn_rt` runtime unchanged.
//!
//! ```
//! use lawn_rt::sync::{mpsc, oneshot};
//!
//! #[lawn_rt::main]
//! async fn main() {
//!     let (tx, mut rx) = mpsc::channel(8);
//!     let (done_tx, done_rx) = oneshot::channel();
//!     lawn_rt::spawn(async move {
//!         let mut sum = 0;
//!         while let Some(n) = rx.recv().await {
//!             sum += n;
//!         }
//!         done_tx.send(sum).unwrap();
//!     });
//!     for n in 1..=4 {
//!         tx.send(n).await.unwrap();
//!     }
//!     drop(tx);
//!     assert_eq!(done_rx.await.unwrap(), 10);
//! }
//! ```
//!
//! # One difference: the cooperative budget
//!
//! tokio's channels count tokio's per-task budget, which only tokio's
//! runtime sets. On a `lawn_rt` runtime a task that loops over a channel
//! that always has a message ready does not yield on its own (in tokio it
//! yields every 128 operations); call
//! [`task::consume_budget`](crate::task::consume_budget) in such a loop.
//! `mpsc::Sender::send_timeout` is absent: it needs tokio's timers.

pub use tokio::sync::*;
