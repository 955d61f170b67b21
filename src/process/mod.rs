//! Child processes whose pipes and exit are awaited on the runtime's own
//! park loop; like `tokio::process`.
//!
//! [`Command`] builds and spawns a process as `std::process::Command`
//! does; the [`Child`] it gives has async [`wait`](Child::wait),
//! [`kill`](Child::kill) and [`wait_with_output`](Child::wait_with_output),
//! and its piped standard streams ([`ChildStdin`], [`ChildStdout`],
//! [`ChildStderr`]) implement `futures::io::{AsyncRead, AsyncWrite}` (and,
//! with the feature `tokio-io`, tokio's), so no thread waits on them.
//!
//! ```
//! use futures::io::{AsyncReadExt, AsyncWriteExt};
//! use lawn_rt::process::Command;
//! use std::process::Stdio;
//!
//! #[lawn_rt::main]
//! async fn main() -> std::io::Result<()> {
//!     let mut child = Command::new("tr")
//!         .arg("a-z")
//!         .arg("A-Z")
//!         .stdin(Stdio::piped())
//!         .stdout(Stdio::piped())
//!         .spawn()?;
//!     let mut stdin = child.stdin.take().unwrap();
//!     stdin.write_all(b"hello").await?;
//!     drop(stdin); // end of input: `tr` finishes
//!     let mut upper = String::new();
//!     child.stdout.take().unwrap().read_to_string(&mut upper).await?;
//!     assert_eq!(upper, "HELLO");
//!     assert!(child.wait().await?.success());
//!     Ok(())
//! }
//! ```
//!
//! # Where it works, and reaping
//!
//! A child must be spawned inside a `lawn_rt` runtime with I/O enabled
//! (elsewhere [`Command::spawn`] panics, saying so, as tokio's does): its
//! pipes register with that runtime's I/O driver. Its exit may be awaited
//! anywhere, also in another runtime or executor after the first runtime
//! was dropped. As in `std` and tokio, dropping a [`Child`] does not stop
//! the process (unless [`Command::kill_on_drop`] was set); a task of the
//! runtime it was spawned in reaps it when it exits. If that runtime is
//! gone, a later spawn or drop of a child reaps it (a best effort, as in
//! tokio): await [`Child::wait`] where a zombie must not linger.
//!
//! # Implementation
//!
//! The pipes are non-blocking mio pipes registered with the runtime's
//! poll, as sockets are (`src/runtime/io/`). The exit is watched from the
//! context of each wait (`exit.rs`): on Linux and Android with a *pidfd*
//! (`pidfd_open`, Linux 5.3) registered with the I/O driver entered there,
//! readable once the process exits; where there is no pidfd, a `SIGCHLD`
//! listener (`crate::signal`); where no driver is entered, a timer that
//! checks at most every 100 ms. `wait` then reaps with `try_wait`. No
//! thread waits for a child, and no `SIGCHLD` handler is installed while
//! there are pidfds.

mod exit;
mod pipes;

use std::ffi::OsStr;
use std::fmt;
use std::future::Future;
use std::io;
use std::path::Path;
use std::process::Command as StdCommand;

pub use std::process::{ExitStatus, Output, Stdio};

pub use pipes::{ChildStderr, ChildStdin, ChildStdout};

use crate::loom::{lock, Mutex};
use crate::runtime::io::{try_current, Driver};
use exit::Exit;

/// The panic message of a spawn outside a runtime with I/O.
const OUTSIDE: &str = "there is no reactor running, must be called from the context of a Tokio \
    1.x runtime (lawn_rt: child processes need a lawn_rt runtime with I/O enabled: spawn them \
    inside `Runtime::block_on`, a spawned task, or after `Runtime::enter`)";

/// A process to spawn, with its arguments, environment and standard
/// streams; like `tokio::process::Command`, a `std::process::Command`
/// whose children are awaited without blocking a thread.
///
/// # Examples
///
/// ```
/// use lawn_rt::process::Command;
///
/// #[lawn_rt::main]
/// async fn main() -> std::io::Result<()> {
///     let output = Command::new("echo").arg("hi").output().await?;
///     assert!(output.status.success());
///     assert_eq!(output.stdout, b"hi\n");
///     Ok(())
/// }
/// ```
pub struct Command {
    std: StdCommand,
    kill_on_drop: bool,
}

impl Command {
    /// A command for the program `program` (looked up in `PATH` if it has
    /// no path separator), with no arguments, the parent's environment and
    /// working directory, and the parent's standard streams.
    ///
    /// # Examples
    ///
    /// ```
    /// let command = lawn_rt::process::Command::new("ls");
    /// assert_eq!(command.as_std().get_program(), "ls");
    /// ```
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command::from(StdCommand::new(program))
    }

    /// The `std` command this wraps.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = lawn_rt::process::Command::new("ls");
    /// command.arg("-l");
    /// assert_eq!(command.as_std().get_args().collect::<Vec<_>>(), ["-l"]);
    /// ```
    pub fn as_std(&self) -> &StdCommand {
        &self.std
    }

    /// The `std` command this wraps, to set what only it can.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = lawn_rt::process::Command::new("ls");
    /// command.as_std_mut().arg("-a");
    /// assert_eq!(command.as_std().get_args().count(), 1);
    /// ```
    pub fn as_std_mut(&mut self) -> &mut StdCommand {
        &mut self.std
    }

    /// The `std` command this wraps (the `kill_on_drop` setting is lost).
    ///
    /// # Examples
    ///
    /// ```
    /// let std: std::process::Command = lawn_rt::process::Command::new("ls").into_std();
    /// assert_eq!(std.get_program(), "ls");
    /// ```
    pub fn into_std(self) -> StdCommand {
        self.std
    }

    /// Adds an argument.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("ls").arg("-l").arg("/tmp");
    /// ```
    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds arguments.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("ls").args(["-l", "/tmp"]);
    /// ```
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Sets an environment variable for the child.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("env").env("LANG", "C");
    /// ```
    pub fn env<K: AsRef<OsStr>, V: AsRef<OsStr>>(&mut self, key: K, val: V) -> &mut Command {
        self.std.env(key, val);
        self
    }

    /// Sets environment variables for the child.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("env").envs([("LANG", "C"), ("TZ", "UTC")]);
    /// ```
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes an environment variable from the child's environment.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("env").env_remove("HOME");
    /// ```
    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Starts the child with an empty environment (plus what
    /// [`env`](Command::env) adds).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("/usr/bin/env").env_clear();
    /// ```
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// Sets the child's working directory.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("ls").current_dir("/tmp");
    /// ```
    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// What the child's standard input is: `Stdio::piped()` gives
    /// [`Child::stdin`]. Inherited by default.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::process::Stdio;
    ///
    /// lawn_rt::process::Command::new("cat").stdin(Stdio::null());
    /// ```
    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdin(cfg);
        self
    }

    /// What the child's standard output is: `Stdio::piped()` gives
    /// [`Child::stdout`]. Inherited by default.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::process::Stdio;
    ///
    /// lawn_rt::process::Command::new("ls").stdout(Stdio::piped());
    /// ```
    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdout(cfg);
        self
    }

    /// What the child's standard error is: `Stdio::piped()` gives
    /// [`Child::stderr`]. Inherited by default.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::process::Stdio;
    ///
    /// lawn_rt::process::Command::new("ls").stderr(Stdio::null());
    /// ```
    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stderr(cfg);
        self
    }

    /// Whether a [`Child`] spawned from now on is killed (`SIGKILL`) when
    /// it is dropped before it has been seen to exit; also when the future
    /// of [`status`](Command::status) or [`output`](Command::output) is
    /// dropped early. `false` by default: a dropped child runs on, as in
    /// `std`.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let child = Command::new("sleep").arg("60").kill_on_drop(true).spawn()?;
    ///     drop(child); // the `sleep` is killed
    ///     Ok(())
    /// }
    /// ```
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// The [`kill_on_drop`](Command::kill_on_drop) setting.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = lawn_rt::process::Command::new("ls");
    /// assert!(!command.get_kill_on_drop());
    /// assert!(command.kill_on_drop(true).get_kill_on_drop());
    /// ```
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// Runs the child as user `id` (`setuid`).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("id").uid(0);
    /// ```
    #[cfg(unix)]
    pub fn uid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::uid(&mut self.std, id);
        self
    }

    /// Runs the child as group `id` (`setgid`).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("id").gid(0);
    /// ```
    #[cfg(unix)]
    pub fn gid(&mut self, id: u32) -> &mut Command {
        std::os::unix::process::CommandExt::gid(&mut self.std, id);
        self
    }

    /// Sets the child's `argv[0]` (the name it sees itself run as).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("/bin/sh").arg0("login-shell");
    /// ```
    #[cfg(unix)]
    pub fn arg0<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        std::os::unix::process::CommandExt::arg0(&mut self.std, arg);
        self
    }

    /// Puts the child in process group `pgroup` (`0`: a new group led by
    /// the child), so a signal to the group reaches its descendants too.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::process::Command::new("sh").process_group(0);
    /// ```
    #[cfg(unix)]
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        std::os::unix::process::CommandExt::process_group(&mut self.std, pgroup);
        self
    }

    /// Starts the process and gives its [`Child`]; the streams set to
    /// `Stdio::piped()` are in its `stdin`, `stdout` and `stderr` fields.
    ///
    /// # Errors
    ///
    /// What starting it fails with (no such program, no permission, the
    /// process limit reached), or an error registering its pipes.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (at the caller's line).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("true").spawn()?;
    ///     assert!(child.id().is_some());
    ///     assert!(child.wait().await?.success());
    ///     assert!(child.id().is_none()); // reaped
    ///     assert!(Command::new("/no/such/program").spawn().is_err());
    ///     Ok(())
    /// }
    /// ```
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        let driver = match try_current() {
            Some(driver) => driver,
            None => panic!("{OUTSIDE}"),
        };
        reap_orphans();
        let child = self.std.spawn()?;
        Child::new(child, &driver, self.kill_on_drop)
    }

    /// Spawns the process and waits for it to exit; its piped streams (if
    /// any were set) are closed at once. Standard streams are inherited by
    /// default.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Command::spawn)'s, or an error waiting.
    ///
    /// # Panics
    ///
    /// As [`spawn`](Command::spawn): the process is spawned at the call,
    /// not when the future is first polled (as in tokio).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let status = Command::new("sh").args(["-c", "exit 3"]).status().await?;
    ///     assert_eq!(status.code(), Some(3));
    ///     Ok(())
    /// }
    /// ```
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> {
        let child = self.spawn();
        async move {
            let mut child = child?;
            drop((child.stdin.take(), child.stdout.take(), child.stderr.take()));
            child.wait().await
        }
    }

    /// Spawns the process with its standard output and error piped (as
    /// tokio's, whatever they were set to; standard input stays as set,
    /// inherited by default), and collects both while waiting for it to
    /// exit.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Command::spawn)'s, or an error reading or waiting.
    ///
    /// # Panics
    ///
    /// As [`spawn`](Command::spawn).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let output = Command::new("sh").args(["-c", "echo out; echo err >&2"]).output().await?;
    ///     assert_eq!((&output.stdout[..], &output.stderr[..]), (&b"out\n"[..], &b"err\n"[..]));
    ///     Ok(())
    /// }
    /// ```
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> {
        self.std.stdout(Stdio::piped());
        self.std.stderr(Stdio::piped());
        let child = self.spawn();
        async move { child?.wait_with_output().await }
    }
}

impl From<StdCommand> for Command {
    /// Wraps a `std` command (with `kill_on_drop` off).
    fn from(std: StdCommand) -> Command {
        Command {
            std,
            kill_on_drop: false,
        }
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Command")
            .field("std", &self.std)
            .field("kill_on_drop", &self.kill_on_drop)
            .finish()
    }
}

/// A spawned process; like `tokio::process::Child`.
///
/// Its piped standard streams are the public fields (`take()` them to use
/// them apart). Dropping it does not stop the process unless
/// [`Command::kill_on_drop`] was set; see the [module docs](self) on
/// reaping.
///
/// # Examples
///
/// ```
/// use lawn_rt::process::Command;
///
/// #[lawn_rt::main]
/// async fn main() -> std::io::Result<()> {
///     let mut child = Command::new("sleep").arg("60").spawn()?;
///     assert!(child.try_wait()?.is_none());
///     child.kill().await?;
///     assert!(!child.wait().await?.success());
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct Child {
    /// The child's standard input, if it was set to `Stdio::piped()`.
    pub stdin: Option<ChildStdin>,
    /// The child's standard output, if it was set to `Stdio::piped()`.
    pub stdout: Option<ChildStdout>,
    /// The child's standard error, if it was set to `Stdio::piped()`.
    pub stderr: Option<ChildStderr>,
    /// `None` only while being dropped.
    child: Option<std::process::Child>,
    /// Set once the process has been reaped.
    status: Option<ExitStatus>,
    exit: Exit,
    kill_on_drop: bool,
    /// The runtime it was spawned in: where a dropped child is reaped.
    runtime: Option<crate::runtime::Handle>,
}

impl Child {
    /// Registers a just-spawned `child`'s pipes and exit with `driver`.
    /// On failure the child is killed and left to be reaped.
    fn new(
        mut child: std::process::Child,
        driver: &std::sync::Arc<Driver>,
        kill_on_drop: bool,
    ) -> io::Result<Child> {
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let registered = (|| {
            Ok::<_, io::Error>((
                stdin.map(|s| ChildStdin::register(s, driver)).transpose()?,
                stdout
                    .map(|s| ChildStdout::register(s, driver))
                    .transpose()?,
                stderr
                    .map(|s| ChildStderr::register(s, driver))
                    .transpose()?,
                Exit::new(&child)?,
            ))
        })();
        match registered {
            Ok((stdin, stdout, stderr, exit)) => Ok(Child {
                stdin,
                stdout,
                stderr,
                child: Some(child),
                status: None,
                exit,
                kill_on_drop,
                runtime: crate::runtime::Handle::try_current().ok(),
            }),
            Err(err) => {
                let _ = child.kill();
                orphan(child);
                Err(err)
            }
        }
    }

    /// The process id, until the process has been reaped (by
    /// [`wait`](Child::wait) or [`try_wait`](Child::try_wait)).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("true").spawn()?;
    ///     assert!(child.id().unwrap() > 0);
    ///     child.wait().await?;
    ///     assert_eq!(child.id(), None);
    ///     Ok(())
    /// }
    /// ```
    pub fn id(&self) -> Option<u32> {
        match self.status {
            Some(_) => None,
            None => self.child.as_ref().map(std::process::Child::id),
        }
    }

    /// Sends `SIGKILL` without waiting for the process to exit (await
    /// [`wait`](Child::wait) after, or use [`kill`](Child::kill), so it is
    /// reaped).
    ///
    /// # Errors
    ///
    /// What `kill(2)` reports. A process already reaped is not signalled
    /// (its id may belong to another process by now): `Ok`, as in tokio.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("sleep").arg("60").spawn()?;
    ///     child.start_kill()?;
    ///     assert!(!child.wait().await?.success());
    ///     child.start_kill()?; // reaped: nothing to do
    ///     Ok(())
    /// }
    /// ```
    pub fn start_kill(&mut self) -> io::Result<()> {
        if self.status.is_some() {
            return Ok(());
        }
        self.std_child().kill()
    }

    /// Sends `SIGKILL` and waits for the process to exit (reaping it).
    ///
    /// # Errors
    ///
    /// As [`start_kill`](Child::start_kill)'s and [`wait`](Child::wait)'s.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("sleep").arg("60").spawn()?;
    ///     child.kill().await?;
    ///     assert!(child.id().is_none());
    ///     Ok(())
    /// }
    /// ```
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await?;
        Ok(())
    }

    /// Waits for the process to exit, reaps it and gives its status (again
    /// on later calls). Closes [`stdin`](Child::stdin) first, if it is
    /// still here, so a child reading its input to the end can finish.
    /// Cancel safe: dropped early, a later call goes on waiting.
    ///
    /// # Errors
    ///
    /// If waiting fails, or the runtime the child was spawned in has shut
    /// down.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("sh").args(["-c", "exit 7"]).spawn()?;
    ///     assert_eq!(child.wait().await?.code(), Some(7));
    ///     assert_eq!(child.wait().await?.code(), Some(7));
    ///     Ok(())
    /// }
    /// ```
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        if let Some(status) = self.status {
            return Ok(status);
        }
        let child = self
            .child
            .as_mut()
            .expect("a child's process is taken only when it is dropped");
        let status = std::future::poll_fn(|cx| self.exit.poll_exit(cx, child)).await?;
        self.status = Some(status);
        Ok(status)
    }

    /// The exit status if the process has exited (reaping it), without
    /// waiting; `None` if it is still running. Does not close
    /// [`stdin`](Child::stdin).
    ///
    /// # Errors
    ///
    /// What `waitpid(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("sleep").arg("60").kill_on_drop(true).spawn()?;
    ///     assert!(child.try_wait()?.is_none());
    ///     Ok(())
    /// }
    /// ```
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let status = self.std_child().try_wait()?;
        self.status = status;
        Ok(status)
    }

    /// Closes [`stdin`](Child::stdin), then collects the piped
    /// [`stdout`](Child::stdout) and [`stderr`](Child::stderr) (empty if
    /// not piped) while waiting for the process to exit.
    ///
    /// # Errors
    ///
    /// An error reading either stream or waiting.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    /// use std::process::Stdio;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let child = Command::new("echo").arg("done").stdout(Stdio::piped()).spawn()?;
    ///     let output = child.wait_with_output().await?;
    ///     assert_eq!(output.stdout, b"done\n");
    ///     assert!(output.stderr.is_empty());
    ///     Ok(())
    /// }
    /// ```
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        drop(self.stdin.take());
        let mut stdout = pipes::Collect::new(self.stdout.take());
        let mut stderr = pipes::Collect::new(self.stderr.take());
        // Both at once: a child blocked writing one pipe while we read only
        // the other would never finish.
        std::future::poll_fn(|cx| {
            let out = stdout.poll_collect(cx)?;
            let err = stderr.poll_collect(cx)?;
            if out.is_ready() && err.is_ready() {
                std::task::Poll::Ready(Ok::<_, io::Error>(()))
            } else {
                std::task::Poll::Pending
            }
        })
        .await?;
        let status = self.wait().await?;
        Ok(Output {
            status,
            stdout: stdout.into_bytes(),
            stderr: stderr.into_bytes(),
        })
    }

    fn std_child(&mut self) -> &mut std::process::Child {
        self.child
            .as_mut()
            .expect("a child's process is taken only when it is dropped")
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if self.status.is_some() {
            return;
        }
        if self.kill_on_drop {
            let _ = child.kill();
        }
        if !matches!(child.try_wait(), Ok(None)) {
            return; // reaped now (or not ours to reap)
        }
        // Reaped by a task of the runtime it was spawned in as soon as it
        // exits; if that runtime is gone, or goes before the child does,
        // by a later spawn or drop (the task's drop puts it on the list).
        let reaper = Reaper {
            child: Some(child),
            exit: std::mem::replace(&mut self.exit, Exit::without_pidfd()),
        };
        match &self.runtime {
            Some(runtime) => drop(runtime.spawn(reaper)),
            None => drop(reaper),
        }
    }
}

/// A task that reaps a dropped child once it exits.
struct Reaper {
    /// `None` once reaped.
    child: Option<std::process::Child>,
    exit: Exit,
}

impl Future for Reaper {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        let this = &mut *self;
        let Some(child) = this.child.as_mut() else {
            return std::task::Poll::Ready(());
        };
        // On an error the child is left to the orphan list, on drop.
        if std::task::ready!(this.exit.poll_exit(cx, child)).is_ok() {
            this.child = None;
        }
        std::task::Poll::Ready(())
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            orphan(child);
        }
    }
}

/// Dropped children not yet reaped (see the module docs).
static ORPHANS: Mutex<Vec<std::process::Child>> = Mutex::new(Vec::new());

/// Leaves `child` to be reaped by a later spawn or drop, unless it can be
/// reaped now.
fn orphan(mut child: std::process::Child) {
    if let Ok(None) = child.try_wait() {
        lock(&ORPHANS).push(child);
    }
    reap_orphans();
}

/// Reaps the orphans that have exited.
fn reap_orphans() {
    let mut orphans = lock(&ORPHANS);
    // An error (not our child any more) drops it too.
    orphans.retain_mut(|child| matches!(child.try_wait(), Ok(None)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orphans_are_reaped_once_they_exit() {
        let child = StdCommand::new("true").spawn().unwrap();
        let pid = child.id();
        lock(&ORPHANS).push(child);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while lock(&ORPHANS).iter().any(|c| c.id() == pid) {
            assert!(
                std::time::Instant::now() < deadline,
                "the orphan was never reaped"
            );
            reap_orphans();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
