//! [`SocketAddr`], and the path checks every Unix socket constructor runs
//! before the system sees the path (so a path too long for `sun_path` is
//! our error, saying the limit).

use std::fmt;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::sys::unix_addr::{self, ABSTRACT_NAMES, SUN_PATH_LEN};

/// The address of a Unix socket: a path in the file system, an abstract
/// name (Linux and Android), or unnamed (a socket that was never bound,
/// such as either end of a `pair` or a connecting stream); like
/// `tokio::net::unix::SocketAddr`.
///
/// Converts to and from `std::os::unix::net::SocketAddr`.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::UnixListener;
///
/// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-addr-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("addr.sock");
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let _entered = rt.enter();
/// let listener = UnixListener::bind(&path)?;
/// let addr = listener.local_addr()?;
/// assert_eq!(addr.as_pathname(), Some(path.as_path()));
/// assert!(!addr.is_unnamed());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct SocketAddr(pub(crate) std::os::unix::net::SocketAddr);

impl SocketAddr {
    /// Whether the address is unnamed (the socket was never bound).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert!(a.local_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn is_unnamed(&self) -> bool {
        self.0.is_unnamed()
    }

    /// The path, if the address is one in the file system.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-path-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("dgram.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let socket = UnixDatagram::bind(&path)?;
    /// assert_eq!(socket.local_addr()?.as_pathname(), Some(path.as_path()));
    /// assert_eq!(UnixDatagram::unbound()?.local_addr()?.as_pathname(), None);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn as_pathname(&self) -> Option<&Path> {
        self.0.as_pathname()
    }

    /// The name, if the address is in the abstract namespace (Linux and
    /// Android: sockets named without a file, by a path that starts with
    /// a NUL byte when binding; the name is what follows it).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixListener;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let name = format!("lawn-rt-doc-abstract-{}", std::process::id());
    /// let listener = UnixListener::bind(format!("\0{name}"))?; // no file
    /// assert_eq!(listener.local_addr()?.as_abstract_name(), Some(name.as_bytes()));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn as_abstract_name(&self) -> Option<&[u8]> {
        unix_addr::abstract_name(&self.0)
    }
}

impl fmt::Debug for SocketAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<std::os::unix::net::SocketAddr> for SocketAddr {
    fn from(addr: std::os::unix::net::SocketAddr) -> SocketAddr {
        SocketAddr(addr)
    }
}

impl From<SocketAddr> for std::os::unix::net::SocketAddr {
    fn from(addr: SocketAddr) -> std::os::unix::net::SocketAddr {
        addr.0
    }
}

/// Whether `path` names the abstract namespace (a leading NUL byte; Linux
/// and Android only, elsewhere such a path is refused by the system).
fn is_abstract(path: &Path) -> bool {
    ABSTRACT_NAMES && path.as_os_str().as_bytes().first() == Some(&0)
}

/// Fails with `InvalidInput`, saying the limit, if `path` does not fit in
/// `sun_path`: at most `SUN_PATH_LEN - 1` bytes (the rest is the NUL that
/// ends a path, or that starts an abstract name).
pub(crate) fn check_path(path: &Path) -> io::Result<()> {
    let abstract_name = is_abstract(path);
    let len = path.as_os_str().len() - usize::from(abstract_name);
    let max = SUN_PATH_LEN - 1;
    if len <= max {
        return Ok(());
    }
    let what = match abstract_name {
        true => "an abstract socket name (after its leading NUL)",
        false => "a Unix socket path",
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "lawn_rt: {what} may be at most {max} bytes long (`sun_path` holds {SUN_PATH_LEN}, \
             with a NUL byte), but this one is {len}: {path:?}"
        ),
    ))
}

/// [`socket_addr`] for `rustix`'s calls (`net::UnixSocket`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn rustix_addr(path: &Path) -> io::Result<rustix::net::SocketAddrUnix> {
    check_path(path)?;
    if is_abstract(path) {
        let name = &path.as_os_str().as_bytes()[1..];
        return Ok(rustix::net::SocketAddrUnix::new_abstract_name(name)?);
    }
    Ok(rustix::net::SocketAddrUnix::new(path)?)
}

/// The `std` address for `path` (checked by [`check_path`]): an abstract
/// name if it starts with a NUL byte (Linux and Android), else a path.
pub(crate) fn socket_addr(path: &Path) -> io::Result<std::os::unix::net::SocketAddr> {
    check_path(path)?;
    if is_abstract(path) {
        let name = &path.as_os_str().as_bytes()[1..];
        return unix_addr::from_abstract_name(name);
    }
    std::os::unix::net::SocketAddr::from_pathname(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_path_that_fits_is_accepted_and_one_more_byte_is_not() {
        let fits = "p".repeat(SUN_PATH_LEN - 1);
        assert!(socket_addr(Path::new(&fits)).is_ok());
        let err = socket_addr(Path::new(&format!("{fits}p"))).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        let limit = format!("at most {} bytes", SUN_PATH_LEN - 1);
        assert!(err.to_string().contains(&limit), "{err}");
    }

    #[test]
    fn an_abstract_name_may_use_all_of_sun_path_after_its_nul() {
        if !ABSTRACT_NAMES {
            return; // no abstract namespace here
        }
        let name = "n".repeat(SUN_PATH_LEN - 1);
        let addr = socket_addr(Path::new(&format!("\0{name}"))).unwrap();
        assert_eq!(unix_addr::abstract_name(&addr), Some(name.as_bytes()));
        let err = socket_addr(Path::new(&format!("\0{name}n"))).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }
}
