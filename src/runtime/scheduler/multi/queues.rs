//! The run queues: a worker's own and the inject queue, stealing, and
//! waking a parked worker when a task is queued (see "Queues" and
//! "Parking without lost wake-ups" in [the module docs](super)).

use std::cell::Cell;
use std::collections::VecDeque;

use super::{Core, MultiThread, PARKING};
use crate::loom::atomic::{fence, Ordering::SeqCst};
use crate::loom::lock;
use crate::runtime::scheduler::InjectTurn;
use crate::runtime::task::TaskRef;

impl MultiThread {
    pub(super) fn push_inject(&self, task: TaskRef) {
        let mut inject = lock(&self.inject);
        if inject.closed {
            drop(inject);
            drop(task);
            return;
        }
        inject.queue.push_back(task);
        if crate::loom::planted("notify") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): a parked worker is looked for before the task is
            // published, so a worker deciding to park misses both.
            self.notify_one();
            self.inject_len.store(inject.queue.len(), SeqCst);
            return;
        }
        self.inject_len.store(inject.queue.len(), SeqCst);
        drop(inject);
        self.notify_one();
    }

    pub(super) fn push_local(&self, index: usize, task: TaskRef) {
        let remote = &self.workers[index];
        let mut queue = lock(&remote.queue);
        queue.push_back(task);
        let len = queue.len();
        remote.len.store(len, SeqCst);
        drop(queue);
        // The worker itself takes the first; a second can go elsewhere.
        // While the worker parks, its events and timers wake tasks in a
        // batch: one notification after the batch (`park`) serves it.
        if len > 1 && !PARKING.with(Cell::get) {
            self.notify_one();
        }
    }

    /// Wakes one parked worker, if any is parked. Called after a queue
    /// length is published; the fence pairs with `list_parked`'s.
    pub(super) fn notify_one(&self) {
        fence(SeqCst);
        if self.num_parked.load(SeqCst) == 0 {
            return;
        }
        let mut idle = lock(&self.idle);
        let Some(index) = idle.pop() else {
            return;
        };
        self.num_parked.fetch_sub(1, SeqCst);
        drop(idle);
        self.workers[index].unpark.unpark();
    }

    fn pop_local(&self, index: usize) -> Option<TaskRef> {
        let remote = &self.workers[index];
        if remote.len.load(SeqCst) == 0 {
            return None;
        }
        let mut queue = lock(&remote.queue);
        let task = queue.pop_front();
        remote.len.store(queue.len(), SeqCst);
        task
    }

    /// Takes a fair share of the inject queue: one task to run now, the
    /// rest into worker `index`'s queue.
    fn pop_inject(&self, index: usize) -> Option<TaskRef> {
        if self.inject_len.load(SeqCst) == 0 {
            return None;
        }
        let mut inject = lock(&self.inject);
        let len = inject.queue.len();
        let take = len
            .div_ceil(self.workers.len())
            .min(self.intervals.event as usize);
        let mut taken: VecDeque<TaskRef> = inject.queue.drain(..take).collect();
        self.inject_len.store(inject.queue.len(), SeqCst);
        drop(inject);
        let first = taken.pop_front();
        if !taken.is_empty() {
            self.append_local(index, taken);
        }
        first
    }

    /// Takes half of another worker's queue (the older half): one task to
    /// run now, the rest into worker `core.index`'s queue.
    fn steal(&self, core: &mut Core) -> Option<TaskRef> {
        let workers = self.workers.len();
        for offset in 0..workers {
            let victim = (core.steal_from + offset) % workers;
            if victim == core.index || self.workers[victim].len.load(SeqCst) == 0 {
                continue;
            }
            let remote = &self.workers[victim];
            let mut queue = lock(&remote.queue);
            let take = queue.len().div_ceil(2);
            let mut taken: VecDeque<TaskRef> = queue.drain(..take).collect();
            remote.len.store(queue.len(), SeqCst);
            drop(queue);
            core.steal_from = victim;
            let first = taken.pop_front();
            if !taken.is_empty() {
                self.append_local(core.index, taken);
            }
            if first.is_some() {
                return first;
            }
        }
        None
    }

    fn append_local(&self, index: usize, mut tasks: VecDeque<TaskRef>) {
        let remote = &self.workers[index];
        let mut queue = lock(&remote.queue);
        queue.append(&mut tasks);
        remote.len.store(queue.len(), SeqCst);
    }

    /// The next task to run: from this worker's queue (the inject queue
    /// first on every `global_queue_interval`-th task), else the inject
    /// queue, else another worker's.
    #[inline]
    pub(super) fn next_task(&self, core: &mut Core, turn: &mut InjectTurn) -> Option<TaskRef> {
        let mut task = None;
        if turn.due() {
            task = self.pop_inject(core.index);
        }
        let task = task
            .or_else(|| self.pop_local(core.index))
            .or_else(|| self.pop_inject(core.index))
            .or_else(|| self.steal(core));
        if task.is_some() {
            turn.taken(self.intervals.global_queue);
        }
        task
    }

    /// Whether any queue holds a task (a hint, read without locks).
    pub(super) fn any_queued(&self) -> bool {
        self.inject_len.load(SeqCst) > 0 || self.workers.iter().any(|w| w.len.load(SeqCst) > 0)
    }
}
