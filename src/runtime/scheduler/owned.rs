//! The set of a runtime's live tasks, so shutdown can drop every future.
//!
//! Ground rules: a task is added when spawned and removed (by index) when
//! it completes; once the set is closed, a task spawned is cancelled at
//! once and nothing more is added.

use super::super::task::TaskRef;
use super::super::Id as RuntimeId;
use crate::loom::{lock, Mutex};

pub(crate) struct Owned {
    inner: Mutex<Set>,
    /// The runtime's id ([`crate::runtime::Id`]), drawn when it is built.
    id: RuntimeId,
}

impl Default for Owned {
    fn default() -> Owned {
        Owned {
            inner: Mutex::default(),
            id: RuntimeId::next(),
        }
    }
}

#[derive(Default)]
struct Set {
    tasks: Vec<Option<TaskRef>>,
    free: Vec<usize>,
    closed: bool,
}

impl Owned {
    /// Adds a new task; `false` (and the task cancelled) if closed.
    pub(crate) fn bind(&self, task: &TaskRef) -> bool {
        let mut set = lock(&self.inner);
        if set.closed {
            drop(set);
            task.clone().shutdown();
            return false;
        }
        let index = match set.free.pop() {
            Some(index) => {
                set.tasks[index] = Some(task.clone());
                index
            }
            None => {
                set.tasks.push(Some(task.clone()));
                set.tasks.len() - 1
            }
        };
        task.set_owned(index);
        true
    }

    /// The runtime's id.
    pub(crate) fn id(&self) -> RuntimeId {
        self.id
    }

    /// How many tasks are bound (spawned and not yet completed).
    pub(crate) fn len(&self) -> usize {
        let set = lock(&self.inner);
        set.tasks.len() - set.free.len()
    }

    /// Removes the task bound at `index` (`usize::MAX`: never bound).
    pub(crate) fn release(&self, index: usize) {
        if index == usize::MAX {
            return;
        }
        let removed = {
            let mut set = lock(&self.inner);
            if set.closed {
                return;
            }
            set.free.push(index);
            let removed = set.tasks[index].take();
            if set.free.len() == set.tasks.len() && set.tasks.len() > 1024 {
                // Every task is done: give a past peak's memory back.
                set.tasks = Vec::new();
                set.free = Vec::new();
            }
            removed
        };
        // Dropped outside the lock: it may be the last reference.
        drop(removed);
    }

    /// Closes the set; returns the live tasks, or `None` if it was closed
    /// already.
    pub(crate) fn close(&self) -> Option<Vec<TaskRef>> {
        let mut set = lock(&self.inner);
        if set.closed {
            return None;
        }
        set.closed = true;
        set.free = Vec::new();
        Some(
            std::mem::take(&mut set.tasks)
                .into_iter()
                .flatten()
                .collect(),
        )
    }
}
