//! [`ToSocketAddrs`]: what `bind`, `connect` and `send_to` accept, and the
//! lookup that turns it into addresses without blocking the runtime.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

/// Something that names one or more socket addresses: a [`SocketAddr`],
/// an `(IpAddr, u16)` pair, a `"host:port"` string, a `(host, port)` pair,
/// or a slice of addresses; like `tokio::net::ToSocketAddrs`.
///
/// An address written as an IP literal is used as is; a host name is looked
/// up (`std`'s resolver, i.e. `getaddrinfo`) on the runtime's blocking
/// pool, so a slow DNS server never stalls the thread running your tasks.
///
/// This trait is sealed: it is implemented for the types above (and
/// references to them) only.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::{TcpListener, ToSocketAddrs};
/// use std::net::{Ipv4Addr, SocketAddr};
///
/// async fn listen(addr: impl ToSocketAddrs) -> std::io::Result<SocketAddr> {
///     TcpListener::bind(addr).await?.local_addr()
/// }
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     listen("127.0.0.1:0").await?;
///     listen((Ipv4Addr::LOCALHOST, 0)).await?;
///     listen(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
///     listen(("localhost", 0)).await?; // a host name: looked up off-thread
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use super::*;

    /// How the addresses are found.
    #[derive(Debug)]
    pub enum Lookup {
        /// Already known: no lookup needed.
        Done(io::Result<Vec<SocketAddr>>),
        /// A `"host:port"` string to resolve.
        Host(String),
        /// A host name and a port to resolve.
        HostPort(String, u16),
    }

    /// The sealed half of [`ToSocketAddrs`](super::ToSocketAddrs).
    pub trait ToSocketAddrsPriv {
        /// The addresses, or what to look up.
        fn lookup(&self) -> Lookup;
    }
}

use sealed::{Lookup, ToSocketAddrsPriv};

/// Looks up the socket addresses `host` names; like
/// `tokio::net::lookup_host`.
///
/// An IP address is returned as is; a host name is looked up with `std`'s
/// resolver (`getaddrinfo`) on the runtime's blocking pool, so a slow DNS
/// server never stalls the thread running your tasks. A name the resolver
/// finds no address for gives an empty iterator or the resolver's error,
/// as it reports it.
///
/// # Panics
///
/// Given a host name outside a `lawn_rt` runtime (the lookup needs the
/// runtime's blocking pool).
///
/// # Examples
///
/// ```
/// use lawn_rt::net::lookup_host;
///
/// #[lawn_rt::main]
/// async fn main() -> std::io::Result<()> {
///     let found: Vec<_> = lookup_host("127.0.0.1:8080").await?.collect();
///     assert_eq!(found, ["127.0.0.1:8080".parse().unwrap()]);
///     for addr in lookup_host(("localhost", 80)).await? {
///         assert_eq!(addr.port(), 80);
///     }
///     Ok(())
/// }
/// ```
pub async fn lookup_host<T: ToSocketAddrs>(
    host: T,
) -> io::Result<impl Iterator<Item = SocketAddr>> {
    Ok(addrs(host.lookup()).await?.into_iter())
}

/// The addresses of a [`Lookup`]: at once for addresses, on the blocking
/// pool for host names. May be empty.
async fn addrs(lookup: Lookup) -> io::Result<Vec<SocketAddr>> {
    match lookup {
        Lookup::Done(addrs) => addrs,
        Lookup::Host(host) => off_thread(move || std::net::ToSocketAddrs::to_socket_addrs(&host))
            .await
            .and_then(|addrs| addrs),
        Lookup::HostPort(host, port) => {
            off_thread(move || std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), port)))
                .await
                .and_then(|addrs| addrs)
        }
    }
}

/// Resolves a [`Lookup`] as [`addrs`] does; an empty result is an
/// `InvalidInput` error.
pub(crate) async fn resolve(lookup: Lookup) -> io::Result<Vec<SocketAddr>> {
    let resolved = addrs(lookup).await?;
    if resolved.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "lawn_rt: the address resolved to no socket address",
        ));
    }
    Ok(resolved)
}

/// Runs a lookup on the runtime's blocking pool.
async fn off_thread<I: Iterator<Item = SocketAddr>>(
    lookup: impl FnOnce() -> io::Result<I> + Send + 'static,
) -> io::Result<io::Result<Vec<SocketAddr>>> {
    crate::task::spawn_blocking(move || lookup().map(Iterator::collect))
        .await
        .map_err(|err| io::Error::other(format!("lawn_rt: the address lookup failed: {err}")))
}

/// Picks the first address of a lookup (for `send_to`).
pub(crate) async fn first(lookup: Lookup) -> io::Result<SocketAddr> {
    Ok(resolve(lookup).await?[0])
}

/// Tries `attempt` on each address in turn; the first success, or the
/// last error (tokio's rule for `bind` and `connect`).
pub(crate) async fn each<T, F, Fut>(addrs: Vec<SocketAddr>, mut attempt: F) -> io::Result<T>
where
    F: FnMut(SocketAddr) -> Fut,
    Fut: std::future::Future<Output = io::Result<T>>,
{
    let mut last = None;
    for addr in addrs {
        match attempt(addr).await {
            Ok(done) => return Ok(done),
            Err(err) => last = Some(err),
        }
    }
    // `resolve` never gives an empty list.
    Err(last.unwrap_or_else(|| io::Error::other("lawn_rt: no address to try")))
}

macro_rules! ready_made {
    ($($ty:ty => |$this:ident| $addrs:expr;)*) => {$(
        impl ToSocketAddrs for $ty {}
        impl ToSocketAddrsPriv for $ty {
            fn lookup(&self) -> Lookup {
                let $this = self;
                Lookup::Done(Ok($addrs))
            }
        }
    )*};
}

ready_made! {
    SocketAddr => |a| vec![*a];
    SocketAddrV4 => |a| vec![SocketAddr::V4(*a)];
    SocketAddrV6 => |a| vec![SocketAddr::V6(*a)];
    (IpAddr, u16) => |a| vec![SocketAddr::new(a.0, a.1)];
    (Ipv4Addr, u16) => |a| vec![SocketAddr::new(a.0.into(), a.1)];
    (Ipv6Addr, u16) => |a| vec![SocketAddr::new(a.0.into(), a.1)];
    [SocketAddr] => |a| a.to_vec();
}

impl<const N: usize> ToSocketAddrs for [SocketAddr; N] {}
impl<const N: usize> ToSocketAddrsPriv for [SocketAddr; N] {
    fn lookup(&self) -> Lookup {
        Lookup::Done(Ok(self.to_vec()))
    }
}

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn lookup(&self) -> Lookup {
        match self.parse::<SocketAddr>() {
            Ok(addr) => Lookup::Done(Ok(vec![addr])),
            Err(_) => Lookup::Host(self.to_owned()),
        }
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn lookup(&self) -> Lookup {
        self.as_str().lookup()
    }
}

impl ToSocketAddrs for (&str, u16) {}
impl ToSocketAddrsPriv for (&str, u16) {
    fn lookup(&self) -> Lookup {
        let (host, port) = *self;
        match host.parse::<IpAddr>() {
            Ok(ip) => Lookup::Done(Ok(vec![SocketAddr::new(ip, port)])),
            Err(_) => Lookup::HostPort(host.to_owned(), port),
        }
    }
}

impl ToSocketAddrs for (String, u16) {}
impl ToSocketAddrsPriv for (String, u16) {
    fn lookup(&self) -> Lookup {
        (self.0.as_str(), self.1).lookup()
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrs + ?Sized> ToSocketAddrsPriv for &T {
    fn lookup(&self) -> Lookup {
        (**self).lookup()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(addr: impl ToSocketAddrs) -> Vec<SocketAddr> {
        match addr.lookup() {
            Lookup::Done(addrs) => addrs.unwrap(),
            _ => panic!("expected no lookup"),
        }
    }

    #[test]
    fn literals_need_no_lookup() {
        let v4: SocketAddr = "127.0.0.1:80".parse().unwrap();
        let v6: SocketAddr = "[::1]:80".parse().unwrap();
        assert_eq!(done("127.0.0.1:80"), [v4]);
        assert_eq!(done(String::from("[::1]:80")), [v6]);
        assert_eq!(done(("127.0.0.1", 80)), [v4]);
        assert_eq!(done(("::1".to_string(), 80)), [v6]);
        assert_eq!(done((Ipv4Addr::LOCALHOST, 80)), [v4]);
        assert_eq!(done(&[v4, v6][..]), [v4, v6]);
        assert_eq!(done([v4]), [v4]);
        let by_ref: &SocketAddr = &v4;
        assert_eq!(done(by_ref), [v4]);
    }

    #[test]
    fn host_names_are_looked_up() {
        assert!(matches!("localhost:80".lookup(), Lookup::Host(h) if h == "localhost:80"));
        assert!(matches!(("localhost", 80).lookup(), Lookup::HostPort(h, 80) if h == "localhost"));
    }
}
