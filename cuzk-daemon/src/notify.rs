//! systemd's readiness protocol (`Type=notify`): datagrams to `$NOTIFY_SOCKET`. Outside
//! systemd (no variable) these calls do nothing.

use std::os::unix::net::UnixDatagram;

/// The service is listening and its preloaded parameters are in.
pub fn ready() {
    send("READY=1\nSTATUS=listening");
}

/// The service is draining.
pub fn stopping() {
    send("STOPPING=1\nSTATUS=draining");
}

fn send(message: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET").filter(|p| !p.is_empty()) else {
        return;
    };
    let sent = UnixDatagram::unbound().and_then(|socket| {
        let bytes = path.as_encoded_bytes();
        if let Some(name) = bytes.strip_prefix(b"@") {
            // An abstract socket (Linux).
            use std::os::linux::net::SocketAddrExt;
            let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
            socket.send_to_addr(message.as_bytes(), &addr)
        } else {
            socket.send_to(message.as_bytes(), &path)
        }
    });
    if let Err(e) = sent {
        tracing::warn!("cannot notify systemd at {}: {e}", path.to_string_lossy());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ready_reaches_the_notify_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify.sock");
        let listener = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
        // SAFETY (of the test): no other thread of this test binary reads NOTIFY_SOCKET.
        std::env::set_var("NOTIFY_SOCKET", &path);
        super::ready();
        std::env::remove_var("NOTIFY_SOCKET");
        let mut buf = [0u8; 64];
        let n = listener.recv(&mut buf).unwrap();
        assert!(std::str::from_utf8(&buf[..n])
            .unwrap()
            .starts_with("READY=1"));
    }
}
