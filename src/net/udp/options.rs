//! [`UdpSocket`]'s socket options.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::UdpSocket;

/// The socket's options (`setsockopt(2)`), each with its getter; like
/// tokio's.
impl UdpSocket {
    /// `SO_BROADCAST`: whether datagrams may go to a broadcast address.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = UdpSocket::bind("0.0.0.0:0").await?;
    ///     socket.set_broadcast(true)?;
    ///     assert!(socket.broadcast()?);
    ///     socket.set_ttl(42)?;
    ///     assert_eq!(socket.ttl()?, 42);
    ///     socket.set_multicast_ttl_v4(3)?;
    ///     assert_eq!(socket.multicast_ttl_v4()?, 3);
    ///     socket.set_multicast_loop_v4(false)?;
    ///     assert!(!socket.multicast_loop_v4()?);
    ///     let group = Ipv4Addr::new(239, 1, 2, 3);
    ///     if socket.join_multicast_v4(group, Ipv4Addr::LOCALHOST).is_ok() {
    ///         socket.leave_multicast_v4(group, Ipv4Addr::LOCALHOST)?;
    ///     } // else: no multicast on this machine's loopback
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn broadcast(&self) -> io::Result<bool> {
        self.io.get_ref().broadcast()
    }

    /// Sets `SO_BROADCAST`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_broadcast(on)
    }

    /// `IP_TTL`: the time-to-live of outgoing datagrams.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.get_ref().ttl()
    }

    /// Sets `IP_TTL`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_ttl(ttl)
    }

    /// `IP_MULTICAST_LOOP`: whether this host's own IPv4 multicast comes
    /// back to it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v4()
    }

    /// Sets `IP_MULTICAST_LOOP`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v4(on)
    }

    /// `IP_MULTICAST_TTL`: the time-to-live of outgoing IPv4 multicast.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.io.get_ref().multicast_ttl_v4()
    }

    /// Sets `IP_MULTICAST_TTL`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_multicast_ttl_v4(ttl)
    }

    /// `IPV6_MULTICAST_LOOP`: whether this host's own IPv6 multicast comes
    /// back to it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports (an IPv4 socket has no such option).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = lawn_rt::net::UdpSocket::bind("[::1]:0").await?;
    ///     socket.set_multicast_loop_v6(false)?;
    ///     assert!(!socket.multicast_loop_v6()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v6()
    }

    /// Sets `IPV6_MULTICAST_LOOP`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`multicast_loop_v6`](Self::multicast_loop_v6).
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v6(on)
    }

    /// Joins the IPv4 multicast group `group` on the interface with
    /// address `interface` (`UNSPECIFIED`: the system's choice).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports (no multicast route, say).
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn join_multicast_v4(&self, group: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().join_multicast_v4(&group, &interface)
    }

    /// Leaves an IPv4 multicast group joined with
    /// [`join_multicast_v4`](Self::join_multicast_v4).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn leave_multicast_v4(&self, group: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v4(&group, &interface)
    }

    /// Joins the IPv6 multicast group `group` on interface number
    /// `interface` (0: the system's choice).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::net::Ipv6Addr;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = lawn_rt::net::UdpSocket::bind("[::]:0").await?;
    ///     let group = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 0x1234);
    ///     if socket.join_multicast_v6(&group, 0).is_ok() {
    ///         socket.leave_multicast_v6(&group, 0)?;
    ///     } // else: no IPv6 multicast route on this machine
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn join_multicast_v6(&self, group: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().join_multicast_v6(group, interface)
    }

    /// Leaves an IPv6 multicast group joined with
    /// [`join_multicast_v6`](Self::join_multicast_v6).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`join_multicast_v6`](Self::join_multicast_v6).
    pub fn leave_multicast_v6(&self, group: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v6(group, interface)
    }
}
