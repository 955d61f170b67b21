//! [`UCred`]: the credentials of a Unix stream's peer (Linux and Android:
//! `SO_PEERCRED`, through rustix).

use std::io;
use std::os::fd::AsFd;

/// A user id, as the system gives it (like tokio's `unix::uid_t`).
///
/// # Examples
///
/// ```
/// use lawn_rt::net::unix::uid_t;
/// use std::os::unix::fs::MetadataExt;
///
/// let mine: uid_t = std::fs::metadata("/proc/self")?.uid();
/// # let _ = mine;
/// # Ok::<(), std::io::Error>(())
/// ```
#[allow(non_camel_case_types)]
pub type uid_t = u32;

/// A group id, as the system gives it (like tokio's `unix::gid_t`).
///
/// # Examples
///
/// ```
/// use lawn_rt::net::unix::gid_t;
/// use std::os::unix::fs::MetadataExt;
///
/// let mine: gid_t = std::fs::metadata("/proc/self")?.gid();
/// # let _ = mine;
/// # Ok::<(), std::io::Error>(())
/// ```
#[allow(non_camel_case_types)]
pub type gid_t = u32;

/// A process id, as the system gives it (like tokio's `unix::pid_t`).
///
/// # Examples
///
/// ```
/// use lawn_rt::net::unix::pid_t;
///
/// let mine = pid_t::try_from(std::process::id()).unwrap();
/// # let _ = mine;
/// ```
#[allow(non_camel_case_types)]
pub type pid_t = i32;

/// The credentials of the process at the other end of a Unix stream, as
/// the system recorded them when the connection (or the pair) was made;
/// from [`UnixStream::peer_cred`](crate::net::UnixStream::peer_cred). Like
/// `tokio::net::unix::UCred`; Linux and Android only.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::UnixStream;
/// use std::os::unix::fs::MetadataExt;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let _entered = rt.enter();
/// let (a, _b) = UnixStream::pair()?;
/// let cred = a.peer_cred()?; // this process: it made both ends
/// assert_eq!(cred.pid(), Some(std::process::id() as i32));
/// assert_eq!(cred.uid(), std::fs::metadata("/proc/self")?.uid());
/// assert_eq!(cred.gid(), std::fs::metadata("/proc/self")?.gid());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UCred {
    pid: Option<pid_t>,
    uid: uid_t,
    gid: gid_t,
}

impl UCred {
    /// The peer's (effective) user id.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    /// use std::os::unix::fs::MetadataExt;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert_eq!(a.peer_cred()?.uid(), std::fs::metadata("/proc/self")?.uid());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn uid(&self) -> uid_t {
        self.uid
    }

    /// The peer's (effective) group id.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    /// use std::os::unix::fs::MetadataExt;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert_eq!(a.peer_cred()?.gid(), std::fs::metadata("/proc/self")?.gid());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn gid(&self) -> gid_t {
        self.gid
    }

    /// The peer's process id (always known on Linux and Android; `None`
    /// is kept for tokio's signature, where other systems may not say).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert_eq!(a.peer_cred()?.pid(), Some(std::process::id() as i32));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn pid(&self) -> Option<pid_t> {
        self.pid
    }
}

/// The credentials of the peer of the Unix stream socket `fd`.
pub(crate) fn peer_cred(fd: impl AsFd) -> io::Result<UCred> {
    let cred = rustix::net::sockopt::socket_peercred(fd)?;
    Ok(UCred {
        pid: Some(cred.pid.as_raw_nonzero().get()),
        uid: cred.uid.as_raw(),
        gid: cred.gid.as_raw(),
    })
}
