//! Who may talk to a server this program runs on the user's machine (`mcp --http`, `sim`,
//! `demo`): the address it binds, the `Host` a request names (DNS-rebinding defence), the
//! `Origin` a browser sends and the media type of a body. Each server answers a refusal in its
//! own protocol's words; the rules are these, once.
//!
//! A rebinding attack needs a host *name* the attacker controls that resolves to this machine, so
//! only the loopback names and the bound address itself (with the bound port) are accepted; an
//! IP literal cannot be rebound, so a server bound to every interface (only with
//! `--allow-remote`, see [`check_bind`]) accepts any IP literal with its port. Unlike the hosted servers (public, so
//! their `Origin` is never trusted for anything), this one runs on the user's machine: a web page
//! from anywhere but loopback must not reach it, so a browser `Origin` other than a loopback one
//! (including `null`, which sandboxed pages send) is refused. Programs send no `Origin`.

use std::net::{IpAddr, SocketAddr};

use axum::http::uri::Authority;
use axum::http::{HeaderMap, Uri, header};

/// Refuse to bind an address other machines could reach unless `allow_remote`: such a server
/// has no credentials, so anyone who can connect can use all of it. `exposes` says what that
/// would hand them, `loopback` how to bind loopback instead (the flag the command takes).
pub fn check_bind(
    addr: SocketAddr,
    allow_remote: bool,
    exposes: &str,
    loopback: &str,
) -> Result<(), String> {
    if addr.ip().is_loopback() || allow_remote {
        return Ok(());
    }
    Err(format!(
        "{} is not a loopback address: other machines could reach the server and {exposes}. \
         Use {loopback}, or add --allow-remote to serve every host that can connect; nothing was done",
        addr.ip()
    ))
}

/// Whether a request naming `host` (the `Host` header) may reach the server bound at `bound`.
pub(crate) fn host_allowed(host: &str, bound: SocketAddr) -> bool {
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
pub(crate) fn origin_allowed(origin: &str) -> bool {
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

/// The `Host` header of a request, if it names this server (see [`host_allowed`]).
pub(crate) fn allowed_host(headers: &HeaderMap, bound: SocketAddr) -> Option<&str> {
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| host_allowed(h, bound))
}

/// Whether the request's body is declared `application/json` (parameters aside).
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| media_type(v) == "application/json")
}

/// `type/subtype` of a media range, lowercase, without parameters.
pub(crate) fn media_type(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
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
    fn only_loopback_binds_without_allow_remote() {
        for ok in ["127.0.0.1:0", "[::1]:8765", "127.0.0.2:1"] {
            assert!(
                check_bind(ok.parse().unwrap(), false, "x", "y").is_ok(),
                "{ok}"
            );
        }
        for remote in ["0.0.0.0:8765", "192.168.1.5:80", "[::]:1"] {
            let e = check_bind(
                remote.parse().unwrap(),
                false,
                "use its tools",
                "--host 127.0.0.1",
            )
            .unwrap_err();
            assert!(
                e.contains("--allow-remote") && e.contains("use its tools"),
                "{e}"
            );
            assert!(e.contains("--host 127.0.0.1"), "{e}");
            assert!(check_bind(remote.parse().unwrap(), true, "x", "y").is_ok());
        }
    }

    #[test]
    fn a_json_body_is_declared_so() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, v.parse().unwrap());
            is_json(&h)
        };
        assert!(with("application/json") && with("Application/JSON; charset=utf-8"));
        assert!(!with("text/plain") && !with("application/x-www-form-urlencoded"));
        assert!(!is_json(&HeaderMap::new()));
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
