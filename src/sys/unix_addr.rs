//! What a Unix socket address may be here: the size of `sun_path`, and
//! the abstract namespace of Linux and Android (see the contract in
//! `sys/mod.rs`).

use std::io;
use std::os::unix::net::SocketAddr;

/// The size of `sockaddr_un`'s `sun_path` here, which bounds a socket's
/// path (with its terminating NUL) or abstract name (with its leading NUL).
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "illumos",
    target_os = "solaris"
))]
pub(crate) const SUN_PATH_LEN: usize = 108;
/// The size of `sockaddr_un`'s `sun_path` here (the BSDs' and Apple's).
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "illumos",
    target_os = "solaris"
)))]
pub(crate) const SUN_PATH_LEN: usize = 104;

/// Whether sockets may be named in the abstract namespace (Linux and
/// Android: no file, a name that starts with a NUL byte).
pub(crate) const ABSTRACT_NAMES: bool = cfg!(any(target_os = "linux", target_os = "android"));

#[cfg(any(target_os = "linux", target_os = "android"))]
mod imp {
    use std::io;
    #[cfg(target_os = "android")]
    use std::os::android::net::SocketAddrExt;
    #[cfg(target_os = "linux")]
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::SocketAddr;

    pub(super) fn from_abstract_name(name: &[u8]) -> io::Result<SocketAddr> {
        SocketAddr::from_abstract_name(name)
    }

    pub(super) fn abstract_name(addr: &SocketAddr) -> Option<&[u8]> {
        addr.as_abstract_name()
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod imp {
    use std::io;
    use std::os::unix::net::SocketAddr;

    pub(super) fn from_abstract_name(_name: &[u8]) -> io::Result<SocketAddr> {
        Err(io::ErrorKind::Unsupported.into())
    }

    pub(super) fn abstract_name(_addr: &SocketAddr) -> Option<&[u8]> {
        None
    }
}

/// The address of `name` (without its leading NUL) in the abstract
/// namespace; an `Unsupported` error where there is none.
pub(crate) fn from_abstract_name(name: &[u8]) -> io::Result<SocketAddr> {
    imp::from_abstract_name(name)
}

/// The name of `addr` (without its leading NUL) if it is in the abstract
/// namespace; always `None` where there is none.
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
pub(crate) fn abstract_name(addr: &SocketAddr) -> Option<&[u8]> {
    imp::abstract_name(addr)
}
