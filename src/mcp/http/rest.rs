//! The risk service's paid HTTP routes, served free: `GET /api/v1/wallet/{address}/risk`,
//! `GET /api/v1/liquidations/nearby`, `POST /api/v1/estimate`, `GET /api/v1/traders/top`. Each
//! answers exactly the `result` of its paid tool (`tools::Paid`), through the same argument
//! checks (query parameters or the JSON body are the tool's arguments, unknown ones refused) and
//! the same Host/Origin, content-type, body-size, time and rate rules as `/mcp` (`front`).
//! Served only when the risk seed's tools are (not under another `--only`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::header::{ALLOW, RETRY_AFTER};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use rmcp::model::JsonObject;
use serde_json::{Map, Value, json};

use super::front::{self, ANSWER_TIMEOUT, BODY_TIMEOUT, Front};
use super::rate::Refused;
use crate::local_server;
use crate::mcp::tools::Paid;

pub(super) fn router(front: Arc<Front>) -> Router {
    Router::new()
        .route(
            Paid::WalletRisk.route(),
            any(
                |State(front): State<Arc<Front>>,
                 ConnectInfo(peer): ConnectInfo<SocketAddr>,
                 Path(address): Path<String>,
                 request: Request| async move {
                    route(&front, peer, Paid::WalletRisk, Some(address), request).await
                },
            ),
        )
        .route(
            Paid::LiquidationsNearby.route(),
            unaddressed(Paid::LiquidationsNearby),
        )
        .route(Paid::Estimate.route(), unaddressed(Paid::Estimate))
        .route(Paid::TopTraders.route(), unaddressed(Paid::TopTraders))
        .with_state(front)
}

/// The handler of a route with no wallet in its path.
fn unaddressed(paid: Paid) -> axum::routing::MethodRouter<Arc<Front>> {
    any(
        move |State(front): State<Arc<Front>>,
              ConnectInfo(peer): ConnectInfo<SocketAddr>,
              request: Request| async move { route(&front, peer, paid, None, request).await },
    )
}

/// One route's request, answered or refused, with the CORS headers `/mcp` sends.
async fn route(
    front: &Front,
    peer: SocketAddr,
    paid: Paid,
    address: Option<String>,
    request: Request,
) -> Response {
    let method = request.method().clone();
    let response = if front.server.input_schema(paid.tool()).is_none() {
        error(
            StatusCode::NOT_FOUND,
            "not_found",
            "this route belongs to the risk seed's tools, which this server does not serve (--only)",
        )
    } else {
        match front.admit(request.headers()) {
            Err(refused) => refused,
            Ok(_) if method == Method::OPTIONS => front::preflight(),
            Ok(_) if method.as_str() == paid.method() => {
                tokio::time::timeout(ANSWER_TIMEOUT, answer(front, peer, paid, address, request))
                    .await
                    .unwrap_or_else(|_| {
                        error(
                            StatusCode::GATEWAY_TIMEOUT,
                            "timeout",
                            format!("no answer within {} s", ANSWER_TIMEOUT.as_secs()),
                        )
                    })
            }
            Ok(_) => {
                let mut r = error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "method_not_allowed",
                    format!("{} {}", paid.method(), paid.route()),
                );
                r.headers_mut()
                    .insert(ALLOW, HeaderValue::from_static(paid.method()));
                r
            }
        }
    };
    tracing::info!(%method, route = paid.route(), client = %peer, status = response.status().as_u16(), "rest");
    front::with_cors(response)
}

async fn answer(
    front: &Front,
    peer: SocketAddr,
    paid: Paid,
    address: Option<String>,
    request: Request,
) -> Response {
    let charged = front
        .rate
        .lock()
        .expect("rate lock")
        .charge(peer.ip(), 1, Instant::now());
    if let Err(refused) = charged {
        let secs = match refused {
            Refused::RetryAfter(s) | Refused::Busy(s) => s,
            Refused::TooLarge => 60,
        };
        let mut r = error(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "Rate limited, as /mcp is (tools/call and these routes share the allowance); retry after {secs} s"
            ),
        );
        r.headers_mut().insert(RETRY_AFTER, HeaderValue::from(secs));
        return r;
    }
    let Some(schema) = front.server.input_schema(paid.tool()) else {
        return error(StatusCode::NOT_FOUND, "not_found", "no such route");
    };
    let args = match arguments(schema, paid, address, request).await {
        Ok(args) => args,
        Err(refused) => return refused,
    };
    match front.server.run(paid.tool(), Value::Object(args)).await {
        None => error(StatusCode::NOT_FOUND, "not_found", "no such route"),
        Some(Ok(mut value)) => axum::Json(value["result"].take()).into_response(),
        Some(Err(message)) => {
            // The tools' failures say which kind they are in their first words.
            let (status, kind) = if message.starts_with("Invalid argument") {
                (StatusCode::BAD_REQUEST, "invalid_argument")
            } else if message.starts_with("The exchange could not be read") {
                (StatusCode::BAD_GATEWAY, "upstream_unavailable")
            } else {
                (StatusCode::UNPROCESSABLE_ENTITY, "refused")
            };
            error(status, kind, message)
        }
    }
}

/// The tool's arguments: a GET's query parameters (typed as the tool's schema types them, a
/// name given twice refused) and the path's wallet, or a POST's JSON object body.
#[allow(clippy::result_large_err)]
async fn arguments(
    schema: &JsonObject,
    paid: Paid,
    address: Option<String>,
    request: Request,
) -> Result<Map<String, Value>, Response> {
    let (parts, body) = request.into_parts();
    let pairs = Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
        .map_err(|e| {
            error(
                StatusCode::BAD_REQUEST,
                "invalid_argument",
                format!("the query string could not be read: {e}"),
            )
        })?
        .0;
    if paid.method() == "POST" {
        if !pairs.is_empty() {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "invalid_argument",
                "this route takes its arguments as a JSON body, not in the query string",
            ));
        }
        if !local_server::is_json(&parts.headers) {
            return Err(error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "Content-Type must be application/json",
            ));
        }
        let body = match tokio::time::timeout(
            BODY_TIMEOUT,
            front::read_capped(&parts.headers, body),
        )
        .await
        {
            Err(_) => {
                return Err(error(
                    StatusCode::REQUEST_TIMEOUT,
                    "timeout",
                    format!(
                        "the body did not arrive within {} s",
                        BODY_TIMEOUT.as_secs()
                    ),
                ));
            }
            Ok(read) => read?,
        };
        return match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(args)) => Ok(args),
            _ => Err(error(
                StatusCode::BAD_REQUEST,
                "invalid_argument",
                "the body must be a JSON object of the tool's arguments",
            )),
        };
    }
    let mut args = Map::new();
    if let Some(a) = address {
        args.insert("address".into(), json!(a));
    }
    for (name, text) in pairs {
        if args.contains_key(&name) {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "invalid_argument",
                format!("{} is given twice", crate::text::sanitize_line(&name, 40)),
            ));
        }
        let value = query_value(schema, &name, text);
        args.insert(name, value);
    }
    Ok(args)
}

/// A query parameter as the JSON value the tool's schema expects: a number where it types one
/// (when the text is a JSON number), a string otherwise, so the schema check words any mismatch.
fn query_value(schema: &JsonObject, name: &str, text: String) -> Value {
    let numeric = schema
        .get("properties")
        .and_then(|p| p.get(name))
        .and_then(|p| p.get("type"))
        .is_some_and(|k| k == "number" || k == "integer");
    if numeric && let Ok(n) = serde_json::from_str::<serde_json::Number>(text.trim()) {
        return Value::Number(n);
    }
    Value::String(text)
}

fn error(status: StatusCode, kind: &str, message: impl Into<String>) -> Response {
    let message = crate::text::sanitize_line(&message.into(), 2000);
    (
        status,
        axum::Json(json!({"error": kind, "message": message})),
    )
        .into_response()
}
