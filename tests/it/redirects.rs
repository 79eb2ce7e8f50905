//! No write follows a redirect, and reads stay on the configured origin (issue 20): a 307/308
//! answer to `POST /intents` used to re-send the signed intent wherever it pointed, and reads
//! followed up to ten hops anywhere. Two loopback servers: the configured one, which redirects,
//! and another origin that counts what reaches it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use papertrade_tui::client::{ExchangeHttp, HttpConfig};

use crate::support::MAINNET_TRADING;

async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn redirect(status: StatusCode, to: String) -> axum::response::Response {
    (status, [(header::LOCATION, to)]).into_response()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_never_follow_a_redirect_and_reads_stay_on_their_origin() {
    let elsewhere_hits = Arc::new(AtomicUsize::new(0));
    let hits = elsewhere_hits.clone();
    let elsewhere = serve(Router::new().fallback(any(move || {
        hits.fetch_add(1, Ordering::SeqCst);
        async { (StatusCode::OK, r#"{"ok":true,"intentId":"0x01"}"#) }
    })))
    .await;
    let away = format!("http://{elsewhere}");
    let (a1, a2, a3) = (away.clone(), away.clone(), away.clone());
    let origin =
        serve(
            Router::new()
                .route(
                    "/intents",
                    post(move || async move {
                        redirect(StatusCode::TEMPORARY_REDIRECT, format!("{a1}/intents"))
                    }),
                )
                .route(
                    "/intents/{id}/cancel",
                    post(move || async move {
                        redirect(StatusCode::PERMANENT_REDIRECT, format!("{a2}/cancel"))
                    }),
                )
                .route(
                    "/state/trading",
                    get(move || async move {
                        redirect(StatusCode::FOUND, format!("{a3}/state/trading"))
                    }),
                ),
        )
        .await;
    // Within its origin a read may move.
    let moving = serve(
        Router::new()
            .route(
                "/state/trading",
                get(|| async { redirect(StatusCode::MOVED_PERMANENTLY, "/moved".into()) }),
            )
            .route("/moved", get(|| async { MAINNET_TRADING })),
    )
    .await;
    let http = ExchangeHttp::new(
        &format!("http://{origin}"),
        &format!("http://{origin}/info"),
        HttpConfig::default(),
    );

    for path in ["/intents", "/intents/0x01/cancel"] {
        let answer = http.post_intent(path, r#"{"signed":"intent"}"#).await;
        let reason = answer.expect_err("a redirect is no answer").0;
        assert!(
            reason.contains("redirecting to http://127.0.0.1") && reason.contains("not followed"),
            "{path}: {reason}"
        );
    }
    let read = http.trading_state().await.expect_err("read off the origin");
    let text = read.to_string();
    assert!(
        text.contains("another origin") && text.contains(&away),
        "{text}"
    );
    assert_eq!(
        elsewhere_hits.load(Ordering::SeqCst),
        0,
        "nothing reached another origin"
    );
    let moved = ExchangeHttp::new(
        &format!("http://{moving}"),
        &format!("http://{moving}/info"),
        HttpConfig::default(),
    );
    moved
        .trading_state()
        .await
        .expect("a redirect within the origin is followed");
}
