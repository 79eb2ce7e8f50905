//! Who may talk to the local server: the `Host` a request names (DNS-rebinding defence) and the
//! `Origin` a browser sends.
//!
//! A rebinding attack needs a host *name* the attacker controls that resolves to this machine, so
//! only the loopback names and the bound address itself (with the bound port) are accepted; an
//! IP literal cannot be rebound, so a server bound to every interface (only with
//! `--allow-remote`) accepts any IP literal with its port. Unlike the hosted servers (public, so
//! their `Origin` is never trusted for anything), this one runs on the user's machine: a web page
//! from anywhere but loopback must not reach it, so a browser `Origin` other than a loopback one
//! (including `null`, which sandboxed pages send) is refused. Programs send no `Origin`.

use std::net::{IpAddr, SocketAddr};

use axum::http::Uri;
use axum::http::uri::Authority;

/// Whether a request naming `host` (the `Host` header) may reach the server bound at `bound`.
pub(super) fn host_allowed(host: &str, bound: SocketAddr) -> bool {
    let Ok(authority) = host.parse::<Authority>() else {
        return false;
    };
    if authority.port_u16().unwrap_or(80) != bound.port() {
        return false;
    }
    let name = bare(authority.host());
    if name == "localhost" {
        return true;
    }
    let Ok(ip) = name.parse::<IpAddr>() else {
        return false;
    };
    ip.is_loopback() || ip == bound.ip() || bound.ip().is_unspecified()
}

/// Whether a request carrying `Origin: origin` may be served: only pages served from loopback.
pub(super) fn origin_allowed(origin: &str) -> bool {
    let Ok(uri) = origin.trim().parse::<Uri>() else {
        return false;
    };
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return false;
    }
    let Some(authority) = uri.authority() else {
        return false;
    };
    let name = bare(authority.host());
    name == "localhost" || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A host as compared: lowercase, IPv6 without its brackets.
fn bare(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_the_loopback_names_and_the_bound_address_with_the_port() {
        let bound: SocketAddr = "127.0.0.1:8765".parse().unwrap();
        for ok in [
            "127.0.0.1:8765",
            "localhost:8765",
            "LocalHost:8765",
            "[::1]:8765",
        ] {
            assert!(host_allowed(ok, bound), "{ok}");
        }
        for refused in [
            "127.0.0.1:8766",
            "127.0.0.1",
            "evil.example:8765",
            "localhost.evil.example:8765",
            "192.168.1.5:8765",
            "",
            "a b",
        ] {
            assert!(!host_allowed(refused, bound), "{refused}");
        }
        let lan: SocketAddr = "192.168.1.5:80".parse().unwrap();
        assert!(host_allowed("192.168.1.5", lan));
        assert!(!host_allowed("10.0.0.1", lan));
        let every: SocketAddr = "0.0.0.0:9000".parse().unwrap();
        assert!(host_allowed("10.0.0.1:9000", every));
        assert!(!host_allowed("rebind.example:9000", every));
    }

    #[test]
    fn origins_are_loopback_pages_only() {
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "http://127.0.0.2:1",
        ] {
            assert!(origin_allowed(ok), "{ok}");
        }
        for refused in [
            "https://evil.example",
            "http://localhost.evil.example",
            "null",
            "file://",
            "chrome-extension://abc",
            "http://192.168.1.5:8765",
            "",
        ] {
            assert!(!origin_allowed(refused), "{refused}");
        }
    }
}
