//! `/mcp`: the hosted servers' HTTP behaviour in front of rmcp's `StreamableHttpService`, which
//! answers every message (the one `Server` behind it answers the tools).
//!
//! rmcp (3.11, stateless, JSON responses) does the JSON-RPC serving, the handshake and version
//! negotiation, and the 2026-07-28 revision's rules (`server/discover`, the version in each
//! request's `_meta` matching the `MCP-Protocol-Version` header, the `Mcp-Method`/`Mcp-Name`
//! headers matching the body, its error codes). What it does not do, and is done here: batches
//! and JSON-RPC errors for unreadable bodies (`jsonrpc`), a plain `GET` describing the server,
//! the server card (`/.well-known/mcp/server-card.json` and `/.well-known/mcp.json`), `OPTIONS`
//! and CORS, answering clients that accept only JSON (rmcp wants both JSON and SSE in `Accept`)
//! or only SSE (one `message` event), the rate limit, and the Host/Origin rules for every method
//! and path — including the ones rmcp never sees — so its own Host check is off and the requests
//! it gets are built here, with the client's protocol headers copied over.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{
    ACCEPT, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ALLOW,
    CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN, RETRY_AFTER,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures::StreamExt;
use rmcp::ServerHandler;
use rmcp::model::{ErrorCode, ProtocolVersion};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use super::rate::{RateLimit, Refused};
use crate::local_server::{self, media_type};
use crate::mcp::jsonrpc::{
    self, INTERNAL_ERROR, INVALID_REQUEST, MAX_BATCH, Messages, RATE_LIMITED,
};
use crate::mcp::{Server, VERSIONS};

/// Request bodies, as the seeds cap them.
pub(super) const MAX_BODY: usize = 64 * 1024;
/// A client that has not sent its body by then is answered 408.
pub(super) const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Every POST is answered by then (the tools' own reads are bounded well within it).
pub(super) const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// An answer rmcp gives for one message is read up to this (the largest tool result is far less).
const MAX_ANSWER: usize = 16 * 1024 * 1024;
/// Messages of one batch answered at the same time (the rest wait their turn, order kept).
const BATCH_CONCURRENCY: usize = 4;
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// The 2026-07-28 revision's routing headers (SEP-2243), which rmcp checks against the body:
/// `Mcp-Method`, `Mcp-Name` and one `Mcp-Param-NAME` per argument a tool's schema marks.
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
const PARAM_HEADER_PREFIX: &str = "mcp-param-";
/// What a browser page may send (the seeds' list, plus the 2026-07-28 routing headers).
const CORS_ALLOW_HEADERS: &str = "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name";
/// The server card's two addresses, as the seeds publish them.
const CARD_PATHS: [&str; 2] = ["/.well-known/mcp/server-card.json", "/.well-known/mcp.json"];
const READ_ONLY: &str = "Read-only: no tool signs, sends funds, places or closes an order. \
Typed data and plans are returned UNSIGNED for the user to review and sign themselves.";

pub(super) struct Front {
    pub(super) server: Server,
    rmcp: StreamableHttpService<Server, NeverSessionManager>,
    bound: SocketAddr,
    pub(super) rate: Mutex<RateLimit>,
}

impl Front {
    pub(super) fn new(server: Server, bound: SocketAddr, rate_per_minute: u32) -> Self {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_sse_retry(None)
            .with_max_request_body_bytes(MAX_BODY)
            .disable_allowed_hosts();
        let factory = server.clone();
        Self {
            server,
            rmcp: StreamableHttpService::new(
                move || Ok(factory.clone()),
                Arc::new(NeverSessionManager::default()),
                config,
            ),
            bound,
            rate: Mutex::new(RateLimit::new(rate_per_minute)),
        }
    }
}

pub(super) fn router(front: Arc<Front>) -> Router {
    let mut router = Router::new().route("/mcp", any(endpoint));
    for path in CARD_PATHS {
        router = router.route(path, any(card));
    }
    router.with_state(front)
}

/// The server card: what this server is, where it answers and its tools, without connecting.
async fn card(
    State(front): State<Arc<Front>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let method = request.method().clone();
    let response = match front.admit(request.headers()) {
        Err(refused) => refused,
        Ok(host) => match method {
            Method::OPTIONS => preflight(),
            Method::GET | Method::HEAD => axum::Json(front.card(&host)).into_response(),
            _ => {
                let mut response = refusal(
                    StatusCode::METHOD_NOT_ALLOWED,
                    INVALID_REQUEST,
                    "the server card is read with GET",
                );
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, HEAD, OPTIONS"));
                response
            }
        },
    };
    tracing::info!(%method, client = %peer, status = response.status().as_u16(), "mcp server card");
    with_cors(response)
}

async fn endpoint(
    State(front): State<Arc<Front>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let method = request.method().clone();
    let response = match front.admit(request.headers()) {
        Err(refused) => refused,
        Ok(host) => match method {
            Method::OPTIONS => preflight(),
            Method::GET if accepts(request.headers(), "text/event-stream") => not_allowed(
                "there is no standalone stream on this stateless server: POST JSON-RPC to /mcp",
            ),
            Method::GET => axum::Json(front.describe(&host)).into_response(),
            Method::POST => {
                match tokio::time::timeout(ANSWER_TIMEOUT, front.post(peer.ip(), request)).await {
                    Ok(answer) => answer,
                    Err(_) => refusal(
                        StatusCode::GATEWAY_TIMEOUT,
                        INTERNAL_ERROR,
                        format!("no answer within {} s", ANSWER_TIMEOUT.as_secs()),
                    ),
                }
            }
            _ => not_allowed("POST JSON-RPC to /mcp; there are no sessions to delete"),
        },
    };
    tracing::info!(%method, client = %peer, status = response.status().as_u16(), "mcp http");
    with_cors(response)
}

/// Every answer may be read by any page the Origin rule let through (no cookies, no
/// credentials: nothing for another origin to ride on).
pub(super) fn with_cors(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(
        ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("Retry-After"),
    );
    response
}

impl Front {
    /// The request's host if it may be served: a loopback or bound-address `Host` with the port
    /// (DNS-rebinding defence), and no browser `Origin` but a loopback one.
    #[allow(clippy::result_large_err)]
    pub(super) fn admit(&self, headers: &HeaderMap) -> Result<String, Response> {
        let host = local_server::allowed_host(headers, self.bound).ok_or_else(|| {
            refusal(
                StatusCode::FORBIDDEN,
                INVALID_REQUEST,
                format!(
                    "Host must be this server's address ({}, localhost or loopback with port {})",
                    self.bound,
                    self.bound.port()
                ),
            )
        })?;
        if let Some(o) = headers.get(ORIGIN)
            && !o.to_str().is_ok_and(local_server::origin_allowed)
        {
            return Err(refusal(
                StatusCode::FORBIDDEN,
                INVALID_REQUEST,
                "this local server refuses browser pages not served from this machine (Origin)",
            ));
        }
        Ok(host.to_string())
    }

    /// The plain `GET`: what this server is.
    fn describe(&self, host: &str) -> Value {
        let info = self.server.get_info();
        let tools = self.server.tool_names();
        json!({
            "name": info.server_info.name,
            "title": info.server_info.title,
            "version": info.server_info.version,
            "description": "Papertrade (unofficial) MCP server, run locally by papertrade-tui",
            "transport": "streamable-http",
            "stateless": true,
            "endpoint": format!("http://{host}/mcp"),
            "serverCard": format!("http://{host}{}", CARD_PATHS[0]),
            "protocolVersions": VERSIONS.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
            "tools": tools.len(),
            "toolNames": tools,
            "access": READ_ONLY,
            "limits": {
                "requestsPerMinute": self.rate.lock().expect("rate lock").per_minute(),
                "requestsPerMinuteAllClients": self.rate.lock().expect("rate lock").all_clients_per_minute(),
                "maxBodyBytes": MAX_BODY,
                "maxBatch": MAX_BATCH,
            },
        })
    }

    /// The server card, in the shape the seeds publish (SEP-1649: server info, the Streamable
    /// HTTP endpoint, capabilities and the full tool list, schemas included).
    fn card(&self, host: &str) -> Value {
        let info = self.server.get_info();
        let endpoint = format!("http://{host}/mcp");
        let versions: Vec<String> = VERSIONS.iter().map(|v| v.to_string()).collect();
        let tools = self.server.tools();
        json!({
            "version": "1.0",
            "protocolVersion": info.protocol_version.to_string(),
            "protocolVersions": versions,
            "serverInfo": {
                "name": info.server_info.name,
                "title": info.server_info.title,
                "version": info.server_info.version,
            },
            "description": "Papertrade (unofficial) read-only MCP server, run locally by papertrade-tui",
            "transport": {"type": "streamable-http", "endpoint": "/mcp", "url": endpoint},
            "remotes": [{
                "type": "streamable-http",
                "url": endpoint,
                "supportedProtocolVersions": versions,
            }],
            "capabilities": info.capabilities,
            "authentication": {"required": false, "schemes": []},
            "instructions": info.instructions,
            "access": READ_ONLY,
            "tools": tools,
            "resources": [],
            "prompts": [],
        })
    }

    async fn post(&self, client: IpAddr, request: Request) -> Response {
        let (parts, body) = request.into_parts();
        let reply = Reply::for_accept(&parts.headers);
        if !local_server::is_json(&parts.headers) {
            return refusal(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                INVALID_REQUEST,
                "Content-Type must be application/json",
            );
        }
        let version = match parts.headers.get(PROTOCOL_VERSION_HEADER) {
            None => None,
            Some(v)
                if VERSIONS
                    .iter()
                    .any(|known| v.as_bytes() == known.as_str().as_bytes()) =>
            {
                Some(v.clone())
            }
            Some(v) => {
                // The revision's code, with the versions served, so a client can pick one.
                let asked = crate::text::sanitize_line(&String::from_utf8_lossy(v.as_bytes()), 40);
                let mut error = jsonrpc::error(
                    Value::Null,
                    ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0.into(),
                    format!(
                        "unsupported MCP-Protocol-Version {asked:?}; this server speaks {}",
                        VERSIONS.map(|v| v.to_string()).join(", ")
                    ),
                );
                error["error"]["data"] = json!({"requested": asked, "supported": VERSIONS});
                return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
            }
        };
        let body = match tokio::time::timeout(BODY_TIMEOUT, read_capped(&parts.headers, body)).await
        {
            Err(_) => {
                return refusal(
                    StatusCode::REQUEST_TIMEOUT,
                    INVALID_REQUEST,
                    format!(
                        "the body did not arrive within {} s",
                        BODY_TIMEOUT.as_secs()
                    ),
                );
            }
            Ok(Err(refused)) => return refused,
            Ok(Ok(body)) => body,
        };
        let messages = match jsonrpc::parse(&body) {
            Ok(m) => m,
            Err(e) => return reply.send(StatusCode::BAD_REQUEST, e),
        };
        if matches!(messages, Messages::Batch(_)) && version.as_ref().is_some_and(stateless_era) {
            // 2026-07-28's headers describe one message; a batch cannot match them.
            return reply.send(
                StatusCode::BAD_REQUEST,
                jsonrpc::error(
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: MCP 2026-07-28 has no batches; POST one message per request",
                ),
            );
        }
        let routing = routing_headers(&parts.headers);
        let charged =
            self.rate
                .lock()
                .expect("rate lock")
                .charge(client, messages.cost(), Instant::now());
        if let Err(refused) = charged {
            return self.rate_limited(&reply, &messages, refused);
        }
        match messages {
            Messages::One(message) => match self.answer(&message, version.as_ref(), &routing).await
            {
                None => StatusCode::ACCEPTED.into_response(),
                Some((status, answer)) => reply.send(status, answer),
            },
            Messages::Batch(items) => {
                let version = version.as_ref();
                let answers: Vec<Value> = futures::stream::iter(items)
                    .map(|m| async move { self.answer(&m, version, &HeaderMap::new()).await })
                    .buffered(BATCH_CONCURRENCY)
                    .filter_map(|a| async move { a.map(|(_, answer)| answer) })
                    .collect()
                    .await;
                if answers.is_empty() {
                    StatusCode::ACCEPTED.into_response()
                } else {
                    reply.send(StatusCode::OK, Value::Array(answers))
                }
            }
        }
    }

    fn rate_limited(&self, reply: &Reply, messages: &Messages, refused: Refused) -> Response {
        let (per_minute, all_clients) = {
            let rate = self.rate.lock().expect("rate lock");
            (rate.per_minute(), rate.all_clients_per_minute())
        };
        let id = match messages {
            Messages::One(m) => m.get("id").cloned().unwrap_or(Value::Null),
            Messages::Batch(_) => Value::Null,
        };
        let (retry, message) = match refused {
            Refused::RetryAfter(secs) => (
                secs,
                format!(
                    "Rate limited: at most {per_minute} calls per minute per client address (a batch counts each message); retry after {secs} s"
                ),
            ),
            Refused::Busy(secs) => (
                secs,
                format!(
                    "Rate limited: at most {all_clients} calls per minute from all clients together \
                     ({per_minute} per client address); retry after {secs} s"
                ),
            ),
            Refused::TooLarge => (
                60,
                format!(
                    "Rate limited: this batch has {} calls, more than the {per_minute} per minute allowed; split it",
                    messages.cost()
                ),
            ),
        };
        let mut response = reply.send(
            StatusCode::TOO_MANY_REQUESTS,
            jsonrpc::error(id, RATE_LIMITED, message),
        );
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(retry));
        response
    }

    /// One message answered by rmcp: `None` for a notification, else the HTTP status a lone
    /// message would get and its JSON-RPC answer.
    async fn answer(
        &self,
        message: &Value,
        version: Option<&HeaderValue>,
        routing: &HeaderMap,
    ) -> Option<(StatusCode, Value)> {
        let id = match jsonrpc::classify(message) {
            Err(error) => return Some((StatusCode::BAD_REQUEST, error)),
            Ok(id) => id,
        };
        let mut request = axum::http::Request::post("/mcp")
            // The Host was checked in front; rmcp only requires one to be there.
            .header(HOST, self.bound.to_string())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json");
        if let Some(v) = version {
            request = request.header(PROTOCOL_VERSION_HEADER, v.clone());
        }
        for (name, value) in routing {
            request = request.header(name, value.clone());
        }
        let request = request
            .body(Body::from(message.to_string()))
            .expect("a request of valid parts");
        let response = self.rmcp.handle(request).await;
        let status = response.status();
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| media_type(v) == "application/json");
        let body = axum::body::to_bytes(Body::new(response.into_body()), MAX_ANSWER).await;
        let id = id?;
        let answer = match (is_json, body) {
            (true, Ok(body)) => serde_json::from_slice::<Value>(&body).ok(),
            _ => None,
        };
        Some(match answer {
            Some(answer) => (status, answer),
            // rmcp refused it at the HTTP level (plain text), or streamed it: with JSON
            // responses on and a server that sends no progress or log messages it never
            // streams, but a stream is not relayed as if it were an answer.
            None => (
                if status.is_success() {
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    status
                },
                jsonrpc::error(
                    id,
                    if status.is_success() {
                        INTERNAL_ERROR
                    } else {
                        INVALID_REQUEST
                    },
                    format!("the MCP service answered HTTP {status} without a JSON-RPC answer"),
                ),
            ),
        })
    }
}

/// Whether a `MCP-Protocol-Version` names the stateless revision (2026-07-28) or a later one.
fn stateless_era(version: &HeaderValue) -> bool {
    version.as_bytes() >= ProtocolVersion::STANDARD_HEADERS.as_str().as_bytes()
}

/// The client's SEP-2243 routing headers, every value kept (rmcp refuses duplicates).
fn routing_headers(headers: &HeaderMap) -> HeaderMap {
    let mut routing = HeaderMap::new();
    for (name, value) in headers {
        let n = name.as_str();
        if n == METHOD_HEADER || n == NAME_HEADER || n.starts_with(PARAM_HEADER_PREFIX) {
            routing.append(name.clone(), value.clone());
        }
    }
    routing
}

/// The body, refused (413) past `MAX_BODY` as soon as it says or sends more: never buffered
/// whole first.
pub(super) async fn read_capped(headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    let too_large = || {
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            INVALID_REQUEST,
            format!("the request body is over {MAX_BODY} bytes"),
        )
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut stream = body.into_data_stream();
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        discard(&mut stream).await;
        return Err(too_large());
    }
    let mut read = Vec::with_capacity(declared.unwrap_or(0) as usize);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            refusal(
                StatusCode::BAD_REQUEST,
                INVALID_REQUEST,
                format!("the request body could not be read: {e}"),
            )
        })?;
        if read.len() + chunk.len() > MAX_BODY {
            discard(&mut stream).await;
            return Err(too_large());
        }
        read.extend_from_slice(&chunk);
    }
    Ok(read.into())
}

/// Read and drop what follows a refused body, a little and briefly: a client still sending
/// when the connection closes can lose the answer to the reset (the kernel's, for unread data),
/// so one slightly over the cap gets its 413; a larger or slower one is cut off regardless.
async fn discard(stream: &mut axum::body::BodyDataStream) {
    const MORE: usize = 1024 * 1024;
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let mut dropped = 0;
        while dropped < MORE {
            match stream.next().await {
                Some(Ok(chunk)) => dropped += chunk.len(),
                _ => break,
            }
        }
    })
    .await;
}

/// How answers are sent: JSON, or one SSE `message` event for a client that accepts only that.
enum Reply {
    Json,
    Event,
}

impl Reply {
    fn for_accept(headers: &HeaderMap) -> Self {
        let stream = accepts(headers, "text/event-stream");
        let json = ["application/json", "application/*", "*/*"]
            .iter()
            .any(|m| accepts(headers, m));
        if stream && !json {
            Reply::Event
        } else {
            Reply::Json
        }
    }

    fn send(&self, status: StatusCode, answer: Value) -> Response {
        match self {
            Reply::Json => (status, axum::Json(answer)).into_response(),
            Reply::Event => (
                status,
                [(CONTENT_TYPE, "text/event-stream")],
                format!("event: message\ndata: {answer}\n\n"),
            )
                .into_response(),
        }
    }
}

/// Whether the `Accept` header lists `media` (parameters and weights aside).
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|m| media_type(m) == media)
}

pub(super) fn preflight() -> Response {
    (
        StatusCode::NO_CONTENT,
        [
            (ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS"),
            (ACCESS_CONTROL_ALLOW_HEADERS, CORS_ALLOW_HEADERS),
            (ACCESS_CONTROL_MAX_AGE, "86400"),
        ],
    )
        .into_response()
}

fn not_allowed(why: &str) -> Response {
    let mut response = refusal(StatusCode::METHOD_NOT_ALLOWED, INVALID_REQUEST, why);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static("POST"));
    response
}

/// A refusal of the whole HTTP request, as a JSON-RPC error with id null.
fn refusal(status: StatusCode, code: i64, message: impl Into<String>) -> Response {
    (
        status,
        axum::Json(jsonrpc::error(Value::Null, code, message)),
    )
        .into_response()
}
