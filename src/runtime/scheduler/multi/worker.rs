//! A worker's loop and its park step (see the loop drawn in [the module
//! docs](super)), and the body of a worker's thread.

use std::collections::VecDeque;
use std::time::Instant as StdInstant;

use super::{Core, MultiThread, CORE, HELP_AFTER, PARKING, WORKER_OF};
use crate::driver::Park;
use crate::loom::atomic::{fence, Ordering::SeqCst};
use crate::loom::lock;
use crate::runtime::context;
use crate::runtime::scheduler::survive;
use crate::runtime::task::TaskRef;

impl MultiThread {
    /// The worker's loop; returns its core at shutdown, or `None` once a
    /// task has handed the core to another thread (`block_in_place`).
    fn run(&self, mut core: Box<Core>) -> Option<Box<Core>> {
        while !self.is_shutdown() {
            let mut ran = 0;
            let event_interval = self.intervals.event;
            let mut turn = core.inject_turn;
            while ran < event_interval {
                let Some(task) = self.next_task(&mut core, &mut turn) else {
                    break;
                };
                core = run_task(core, task)?;
                ran += 1;
                if let Some(since) = core.help_wanted {
                    self.help_if_still_queued(&mut core, since);
                }
            }
            core.inject_turn = turn;
            let idle = ran < event_interval
                && context::with_local(self.id(), |l| l.deferred.is_empty()).unwrap_or(true);
            self.park(&mut core, idle);
        }
        Some(core)
    }

    /// One park step (see the module docs); if it left this worker more
    /// than one task (and no more than one turn runs), a parked worker is
    /// woken for them only if they are still queued [`HELP_AFTER`] later
    /// (`help_if_still_queued`).
    fn park(&self, core: &mut Core, idle: bool) {
        struct Parking;
        impl Drop for Parking {
            fn drop(&mut self) {
                PARKING.with(|parking| parking.set(false));
            }
        }
        let parking = Parking;
        PARKING.with(|parking| parking.set(true));
        self.park_step(core, idle);
        drop(parking);
        // The notification the step's wake-ups held back: at once for more
        // tasks than one turn of the loop runs, else deferred (the worker
        // takes the first task, and another worker is woken for the rest
        // only if they wait too long). A queue that has not emptied since
        // an earlier step keeps that step's instant.
        let len = self.workers[core.index].len.load(SeqCst);
        if len > self.intervals.event as usize {
            core.help_wanted = None;
            self.notify_one();
        } else if len > 1 {
            core.help_wanted.get_or_insert_with(StdInstant::now);
        } else {
            core.help_wanted = None;
        }
    }

    /// Between two tasks of a batch: wakes a parked worker if this one's
    /// queue still holds tasks [`HELP_AFTER`] after `since`, when its park
    /// step queued them; forgets the batch once the queue is empty.
    fn help_if_still_queued(&self, core: &mut Core, since: StdInstant) {
        if self.workers[core.index].len.load(SeqCst) == 0 {
            core.help_wanted = None;
        } else if since.elapsed() >= HELP_AFTER {
            core.help_wanted = None;
            self.notify_one();
        }
    }

    /// The park step itself: block if `idle` and nothing is queued
    /// anywhere, else only look for events; then fire this shard's due
    /// timers and wake the tasks that yielded. An idle step runs the park
    /// hook first (a task it spawns lands in this worker's queue, which
    /// `list_parked` looks at, so the worker does not block) and the
    /// unpark hook last.
    fn park_step(&self, core: &mut Core, idle: bool) {
        if idle {
            self.hooks.parking();
        }
        let remote = &self.workers[core.index];
        let time = remote.time.as_ref().map(|driver| driver.handle());
        let listed = idle && self.list_parked(core.index);
        let mut began = false;
        let mut blocked = false;
        if listed {
            let plan = match time {
                None => Park::Until(None),
                Some(timers) => timers.begin_park(None),
            };
            began = time.is_some() && plan != Park::Skip;
            // I/O readiness wakes tasks from inside the poll.
            match plan {
                Park::Until(until) => {
                    blocked = true;
                    let Core {
                        parker, busy_since, ..
                    } = core;
                    remote.stats.around_park(busy_since, || {
                        survive(|| parker.park(until, StdInstant::now(), true));
                    });
                }
                Park::Skip => survive(|| core.parker.poll_now()),
            }
            self.unlist_parked(core.index);
        } else {
            survive(|| core.parker.poll_now());
        }
        if began {
            if let Some(timers) = time {
                timers.end_park();
            }
        }
        if let Some(driver) = &remote.time {
            // A waker that panics has fired its timer.
            let mut fired = 1;
            survive(|| fired = driver.process());
            if blocked {
                driver.count_wake_up(core.parker.wake_cause(fired));
            }
        }
        let deferred = context::with_local(self.id(), |l| std::mem::take(&mut l.deferred));
        for waker in deferred.into_iter().flatten() {
            survive(|| waker.wake());
        }
        if idle {
            self.hooks.unparked();
        }
    }

    /// Lists worker `index` as parked unless a task is queued somewhere or
    /// the runtime is shutting down; returns whether it did.
    fn list_parked(&self, index: usize) -> bool {
        self.num_parked.fetch_add(1, SeqCst);
        // Pairs with `notify_one`'s fence: either this worker's count is
        // seen there, or the queue length published before it is seen
        // here. (The SeqCst accesses alone promise the same, but loom
        // models them as acquire/release; the fences it models.)
        fence(SeqCst);
        let mut idle = lock(&self.idle);
        if self.is_shutdown() || self.any_queued() {
            self.num_parked.fetch_sub(1, SeqCst);
            return false;
        }
        idle.push(index);
        true
    }

    /// Takes worker `index` off the parked list, unless a notifier did.
    fn unlist_parked(&self, index: usize) {
        let mut idle = lock(&self.idle);
        if let Some(position) = idle.iter().position(|&i| i == index) {
            idle.swap_remove(position);
            self.num_parked.fetch_sub(1, SeqCst);
        }
    }
}

/// A worker's thread body: from the start (`local` is `None`) or from a
/// hand-off; after handing its worker over, the thread waits as a spare
/// for another hand-off.
pub(super) fn run_worker(
    handle: crate::runtime::Handle,
    core: Box<Core>,
    local: Option<context::Local>,
) {
    let crate::runtime::scheduler::Scheduler::Multi(shared) = handle.inner.clone() else {
        unreachable!("a worker belongs to a multi-thread runtime");
    };
    WORKER_OF.with(|w| *w.borrow_mut() = Some(shared.clone()));
    let mut next = Some((core, local));
    while let Some((core, local)) = next.take() {
        match local {
            Some(local) => context::resume_driving(local),
            None => context::start_driving(shared.id(), core.index, VecDeque::new()),
        }
        let handed_over = {
            let _entered = handle.enter();
            match shared.run(core) {
                Some(core) => {
                    // Cleans up (drops futures) with the runtime still
                    // entered, and the core (its parker) kept until then.
                    shared.worker_done();
                    drop(core);
                    false
                }
                None => true,
            }
        };
        let deferred = context::stop_driving().map(|local| local.deferred);
        drop(deferred);
        if handed_over {
            next = shared
                .wait_as_spare()
                .map(|(core, local)| (core, Some(local)));
        }
    }
}

/// Runs `task` with `core` in `CORE`; gives the core back unless the task
/// handed it over (`block_in_place`).
#[inline]
fn run_task(core: Box<Core>, task: TaskRef) -> Option<Box<Core>> {
    CORE.with(|slot| *slot.borrow_mut() = Some(core));
    task.run();
    CORE.with(|slot| slot.borrow_mut().take())
}
