//! [`Gate`]: the async lock a file's `&self` operations hold.

use std::sync::{Mutex, MutexGuard};
use std::task::{Poll, Waker};

/// An async lock without fairness: each `&self` operation of a file holds
/// it for its whole run. A release wakes every waiter; one gets it, the
/// others wait again.
#[derive(Default)]
pub(super) struct Gate {
    state: Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    locked: bool,
    next_id: u64,
    waiters: Vec<(u64, Waker)>,
}

pub(super) struct GateGuard<'a> {
    gate: &'a Gate,
}

impl Gate {
    fn lock_state(&self) -> MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) async fn lock(&self) -> GateGuard<'_> {
        let mut waiting = Waiting {
            gate: self,
            id: None,
        };
        std::future::poll_fn(|cx| {
            let mut state = self.lock_state();
            if !state.locked {
                state.locked = true;
                if let Some(id) = waiting.id.take() {
                    state.waiters.retain(|(key, _)| *key != id);
                }
                return Poll::Ready(GateGuard { gate: self });
            }
            let id = *waiting.id.get_or_insert_with(|| {
                state.next_id += 1;
                state.next_id
            });
            match state.waiters.iter_mut().find(|(key, _)| *key == id) {
                Some((_, waker)) => waker.clone_from(cx.waker()),
                None => state.waiters.push((id, cx.waker().clone())),
            }
            Poll::Pending
        })
        .await
    }
}

/// A waiter for the gate: forgets its waker when dropped.
struct Waiting<'a> {
    gate: &'a Gate,
    id: Option<u64>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.gate.lock_state().waiters.retain(|(key, _)| *key != id);
        }
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        let waiters = {
            let mut state = self.gate.lock_state();
            state.locked = false;
            std::mem::take(&mut state.waiters)
        };
        for (_, waker) in waiters {
            waker.wake();
        }
    }
}
