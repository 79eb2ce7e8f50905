//! Who may use the simulator at all: it runs on the trader's machine, so a web page in their
//! browser must not be able to reach it. Every request must name this server in `Host` (a page
//! on a rebound host name is refused, its reads included); the practice controls, which fund
//! wallets, move prices and post operator notices, also refuse any browser `Origin` (no page
//! has business there, loopback or not) and any body not declared `application/json` (the
//! `text/plain` a page may send without asking). The rules are `local_server`'s; the refusals
//! are the exchange's error bodies, their codes INVENTED.

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::local_server;
use crate::sim::intake::Refusal;

use super::gate::check_origin;
use super::refusal;

/// Every route: the `Host` must be this server's.
pub(super) async fn host(
    State(bound): State<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    if local_server::allowed_host(request.headers(), bound).is_none() {
        return refusal(Refusal::new(
            403,
            "host_not_allowed",
            format!(
                "Host must be this simulator's address ({bound}, localhost or loopback with port {})",
                bound.port()
            ),
        ));
    }
    next.run(request).await
}

/// The `/sim/*` controls: no browser page, and a JSON body said to be JSON.
pub(super) async fn control(request: Request, next: Next) -> Response {
    if let Err(r) = check_origin(request.headers()) {
        return refusal(r);
    }
    if !local_server::is_json(request.headers()) {
        return refusal(Refusal::new(
            415,
            "unsupported_media_type",
            "a control's body must be sent as Content-Type: application/json",
        ));
    }
    next.run(request).await
}
