//! The liquidation commands against the simulator: every figure recomputed here from the
//! engine's own accounts and open interest (not from the analytics code), the seeds' argument
//! ranges refused with exit 2, and the scan honouring a 429 from the leaderboard.

use std::process::Output;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use papertrade_tui::client::scan::{ScanCache, scan};
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::sim::SimConfig;
use serde_json::{Value, json};

use crate::simkit::Sim;
use crate::support;

/// One open position as the engine holds it.
#[derive(Debug, Clone)]
struct Held {
    wallet: Address,
    id: U256,
    market: u32,
    is_long: bool,
    leverage: u32,
    notional: u128,
    entry: u64,
    bust: u64,
}

/// A still exchange with a crowd holding positions: the manual clock keeps marks and books
/// where the engine has them while the commands read.
async fn crowded(crowd: usize) -> Sim {
    Sim::start(SimConfig {
        seed: 11,
        crowd,
        manual_clock: true,
        heartbeat_ms: 200,
        ..SimConfig::default()
    })
    .await
}

fn held(sim: &Sim) -> Vec<Held> {
    sim.server.shared.with_engine(|e| {
        let mut out = Vec::new();
        for (wallet, a) in &e.accounts {
            for p in &a.state.open_positions {
                out.push(Held {
                    wallet: *wallet,
                    id: p.id,
                    market: p.instrument_id,
                    is_long: p.is_long,
                    leverage: p.leverage,
                    notional: p.margin * u128::from(p.leverage),
                    entry: p.entry_price,
                    bust: p.bust_price,
                });
            }
        }
        out.sort_by_key(|h| h.id);
        out
    })
}

fn mark(sim: &Sim, market: u32) -> u64 {
    sim.server.shared.with_engine(|e| e.mark(market).unwrap())
}

async fn run(sim: &Sim, args: &[&str]) -> Output {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend([
        "--api".into(),
        sim.server.base_url(),
        "--info-url".into(),
        sim.server.info_url(),
    ]);
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        support::run(&refs)
    })
    .await
    .unwrap()
}

async fn json_of(sim: &Sim, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = run(sim, &all).await;
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    support::stdout_json(&out)
}

fn raw(v: &Value) -> u128 {
    v.as_str().unwrap().parse().unwrap()
}

fn standing(h: &Held, mark: u64) -> bool {
    if h.is_long {
        mark > h.bust
    } else {
        mark < h.bust
    }
}

/// `qty × mark / scale` of `notional × scale / entry`: open interest in USD at the mark.
fn oi_usd(qty: u128, mark: u64, scale: u64) -> u128 {
    (U256::from(qty) * U256::from(mark) / U256::from(scale)).to::<u128>()
}

fn qty(h: &Held, scale: u64) -> u128 {
    (U256::from(h.notional) * U256::from(scale) / U256::from(h.entry)).to::<u128>()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crowd_starts_with_a_book_on_both_sides_at_many_leverages() {
    let sim = crowded(40).await;
    let book = held(&sim);
    assert!(book.len() >= 30, "{} positions", book.len());
    assert!(book.iter().any(|h| h.is_long) && book.iter().any(|h| !h.is_long));
    assert!(book.iter().any(|h| h.market == 0) && book.iter().any(|h| h.market == 1));
    let leverages: std::collections::BTreeSet<u128> = sim.server.shared.with_engine(|e| {
        e.accounts
            .values()
            .flat_map(|a| {
                a.state
                    .open_positions
                    .iter()
                    .map(|p| u128::from(p.leverage))
            })
            .collect()
    });
    assert!(leverages.len() >= 5, "{leverages:?}");
    // Nothing starts past its bust, and open interest is the book's.
    for h in &book {
        assert!(standing(h, mark(&sim, h.market)), "{h:?}");
    }
    let (long_oi, short_oi) = sim.server.shared.with_engine(|e| {
        let m = &e.trading.instruments[0];
        (m.long_oi, m.short_oi)
    });
    let expect = |long: bool| -> u128 {
        book.iter()
            .filter(|h| h.market == 0 && h.is_long == long)
            .map(|h| qty(h, 10))
            .sum()
    };
    assert_eq!((long_oi, short_oi), (expect(true), expect(false)));
    // Seeded: the same seed opens the same book.
    let again = crowded(40).await;
    let a: Vec<(U256, u64, u64)> = book.iter().map(|h| (h.id, h.entry, h.bust)).collect();
    let b: Vec<(U256, u64, u64)> = held(&again)
        .iter()
        .map(|h| (h.id, h.entry, h.bust))
        .collect();
    assert_eq!(a, b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_top_of_the_book_by_open_notional_spans_leverages_and_its_busts_spread() {
    let sim = crowded(150).await;
    let book = held(&sim);
    // The 20 wallets with the most open notional, as the scan picks them.
    let mut by_wallet: std::collections::BTreeMap<Address, u128> = Default::default();
    for h in &book {
        *by_wallet.entry(h.wallet).or_default() += h.notional;
    }
    let mut wallets: Vec<(Address, u128)> = by_wallet.into_iter().collect();
    wallets.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top: std::collections::BTreeSet<Address> =
        wallets.iter().take(20).map(|(w, _)| *w).collect();
    let mut per_leverage: std::collections::BTreeMap<u32, u128> = Default::default();
    for h in book.iter().filter(|h| top.contains(&h.wallet)) {
        *per_leverage.entry(h.leverage).or_default() += h.notional;
    }
    let total: u128 = per_leverage.values().sum();
    assert!(per_leverage.len() >= 5, "{per_leverage:?}");
    assert!(
        per_leverage.keys().any(|l| *l <= 10) && per_leverage.keys().any(|l| *l >= 500),
        "{per_leverage:?}"
    );
    assert!(
        per_leverage.values().all(|n| *n * 2 < total),
        "no leverage holds half the top's notional: {per_leverage:?}"
    );
    // Busts lie several percent either side of the mark, not all at it.
    let mark = u128::from(mark(&sim, 0));
    let btc: Vec<&Held> = book.iter().filter(|h| h.market == 0).collect();
    let away_bps = |h: &Held| u128::from(h.bust).abs_diff(mark) * 10_000 / mark;
    assert!(btc.iter().any(|h| h.is_long && away_bps(h) >= 500));
    assert!(btc.iter().any(|h| !h.is_long && away_bps(h) >= 500));
    let btc_total: u128 = btc.iter().map(|h| h.notional).sum();
    let at_mark: u128 = btc
        .iter()
        .filter(|h| away_bps(h) < 50)
        .map(|h| h.notional)
        .sum();
    assert!(
        at_mark * 3 < btc_total * 2,
        "busts within 0.5% of the mark hold {at_mark} of {btc_total}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bust_map_sums_cascade_and_coverage_are_the_engines() {
    // Fewer wallets than the scan reads: every position is scanned, coverage is whole.
    let sim = crowded(30).await;
    let book = held(&sim);
    let btc: Vec<&Held> = book.iter().filter(|h| h.market == 0).collect();
    let mark = mark(&sim, 0);
    let v = json_of(
        &sim,
        &[
            "bust-map",
            "--market",
            "BTC",
            "--wallets",
            "44",
            "--bucket-usd",
            "150",
            "--max-buckets",
            "200",
            "--cascade-percent",
            "2.5",
        ],
    )
    .await;
    assert_eq!(raw(&v["markPriceRaw"]), u128::from(mark));
    assert_eq!(v["bucketRaw"], "1500");
    let buckets = v["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 200);
    let mut in_buckets = 0u128;
    for b in buckets {
        let (low, high) = (
            raw(&b["priceLowRaw"]) as u64,
            raw(&b["priceHighRaw"]) as u64,
        );
        assert_eq!(high - low, 1500);
        let sum = |long: bool| -> u128 {
            btc.iter()
                .filter(|h| h.is_long == long && standing(h, mark) && (low..high).contains(&h.bust))
                .map(|h| h.notional)
                .sum()
        };
        assert_eq!(raw(&b["longNotionalRaw"]), sum(true), "{b}");
        assert_eq!(raw(&b["shortNotionalRaw"]), sum(false), "{b}");
        // Longs below the mark, shorts above.
        if low > mark {
            assert_eq!(sum(true), 0);
        }
        if high <= mark {
            assert_eq!(sum(false), 0);
        }
        let cumulative_long: u128 = btc
            .iter()
            .filter(|h| h.is_long && standing(h, mark) && h.bust >= low)
            .map(|h| h.notional)
            .sum();
        assert_eq!(raw(&b["cumulativeLongNotionalRaw"]), cumulative_long);
        in_buckets += sum(true) + sum(false);
    }
    assert!(in_buckets > 0, "the map has shape");
    let outside = &v["outsideBuckets"];
    let past = &v["pastBust"];
    let all: u128 = btc.iter().map(|h| h.notional).sum();
    assert_eq!(
        in_buckets
            + raw(&outside["longNotionalRaw"])
            + raw(&outside["shortNotionalRaw"])
            + raw(&past["longNotionalRaw"])
            + raw(&past["shortNotionalRaw"]),
        all
    );
    assert_eq!(v["totals"]["positions"], btc.len());
    // The cascade: every position whose bust lies inside a 2.5% move.
    let step = u64::try_from(u128::from(mark) * 250 / 10_000).unwrap();
    let (down, up) = (mark - step, mark + step);
    let c = &v["cascade"];
    assert_eq!(raw(&c["downPriceRaw"]), u128::from(down));
    let inside: Vec<&&Held> = btc
        .iter()
        .filter(|h| {
            if h.is_long {
                h.bust >= down
            } else {
                h.bust <= up
            }
        })
        .collect();
    let side = |long: bool| -> u128 {
        inside
            .iter()
            .filter(|h| h.is_long == long)
            .map(|h| h.notional)
            .sum()
    };
    assert_eq!(raw(&c["longNotionalRaw"]), side(true));
    assert_eq!(raw(&c["shortNotionalRaw"]), side(false));
    assert_eq!(c["positions"], inside.len());
    assert_eq!(c["percent"], json!(2.5));
    // Everything was scanned: the scanned open interest is the market's.
    let (long_oi, short_oi) = sim.server.shared.with_engine(|e| {
        let m = &e.trading.instruments[0];
        (m.long_oi, m.short_oi)
    });
    let cov = &v["coverage"];
    assert_eq!(
        raw(&cov["totalNotionalRaw"]),
        oi_usd(long_oi + short_oi, mark, 10)
    );
    assert_eq!(cov["scannedNotionalRaw"], cov["totalNotionalRaw"]);
    assert_eq!(cov["fraction"], json!(1));
    assert_eq!(v["scan"]["walletsScanned"], 30);

    // Three wallets: the three with the most open notional, and their share of open interest.
    let v = json_of(&sim, &["bust-map", "--market", "BTC", "--wallets", "3"]).await;
    let mut by_wallet: Vec<(u128, Address)> = sim.server.shared.with_engine(|e| {
        e.accounts
            .iter()
            .map(|(w, a)| {
                let n: u128 = a
                    .state
                    .open_positions
                    .iter()
                    .map(|p| p.margin * u128::from(p.leverage))
                    .sum();
                (n, *w)
            })
            .collect()
    });
    by_wallet.sort_by(|a, b| b.cmp(a));
    let top: Vec<Address> = by_wallet.iter().take(3).map(|(_, w)| *w).collect();
    let scanned_qty: u128 = btc
        .iter()
        .filter(|h| top.contains(&h.wallet))
        .map(|h| qty(h, 10))
        .sum();
    let cov = &v["coverage"];
    let scanned = oi_usd(scanned_qty, mark, 10);
    assert_eq!(raw(&cov["scannedNotionalRaw"]), scanned);
    let total = oi_usd(long_oi + short_oi, mark, 10);
    let expected = format!("{:.4}", scanned as f64 / total as f64);
    assert_eq!(cov["fraction"].to_string(), expected.trim_end_matches('0'));
    assert_eq!(v["scan"]["walletsScanned"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closest_to_bust_ranks_as_the_sort_does_and_filters() {
    let sim = crowded(30).await;
    let book = held(&sim);
    let marks = [mark(&sim, 0), mark(&sim, 1)];
    // distance = room / mark, exactly, as a sortable pair (cross-multiplied by the caller).
    let room = |h: &Held| -> i128 {
        let m = i128::from(marks[h.market as usize]);
        if h.is_long {
            m - i128::from(h.bust)
        } else {
            i128::from(h.bust) - m
        }
    };
    let mut expected: Vec<&Held> = book.iter().collect();
    expected.sort_by(|a, b| {
        let (ma, mb) = (
            marks[a.market as usize] as i128,
            marks[b.market as usize] as i128,
        );
        (room(a) * mb)
            .cmp(&(room(b) * ma))
            .then(b.notional.cmp(&a.notional))
            .then(a.id.cmp(&b.id))
    });
    let v = json_of(
        &sim,
        &["closest-to-bust", "--wallets", "44", "--limit", "50"],
    )
    .await;
    let rows = v["positions"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len().min(50));
    for (i, (row, h)) in rows.iter().zip(&expected).enumerate() {
        assert_eq!(row["rank"], i + 1);
        assert_eq!(row["positionId"], h.id.to_string());
        assert_eq!(raw(&row["bustPriceRaw"]), u128::from(h.bust));
        assert_eq!(raw(&row["notionalRaw"]), h.notional);
        assert_eq!(row["distanceToBustRaw"], room(h).to_string());
    }
    // Filters: ETH shorts within 1% of bust.
    let v = json_of(
        &sim,
        &[
            "closest-to-bust",
            "--wallets",
            "44",
            "--market",
            "ETH",
            "--side",
            "short",
            "--max-distance-percent",
            "1",
            "--limit",
            "50",
        ],
    )
    .await;
    let want: Vec<String> = expected
        .iter()
        .filter(|h| h.market == 1 && !h.is_long && room(h) * 100 <= i128::from(marks[1]))
        .take(50)
        .map(|h| h.id.to_string())
        .collect();
    let got: Vec<String> = v["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["positionId"].as_str().unwrap().to_string())
        .collect();
    assert!(!want.is_empty(), "the crowd holds close ETH shorts");
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wallet_risk_clusters_and_the_regrouped_map_are_the_engines() {
    let sim = crowded(30).await;
    let book = held(&sim);
    let mark0 = mark(&sim, 0);
    // The wallet with the most positions.
    let wallet = {
        let mut counts: Vec<(usize, Address)> = book
            .iter()
            .map(|h| {
                (
                    book.iter().filter(|o| o.wallet == h.wallet).count(),
                    h.wallet,
                )
            })
            .collect();
        counts.sort();
        counts.last().unwrap().1
    };
    let mine: Vec<&Held> = book.iter().filter(|h| h.wallet == wallet).collect();
    let v = json_of(&sim, &["wallet-risk", &format!("{wallet:#x}")]).await;
    let rows = v["positions"].as_array().unwrap();
    assert_eq!(rows.len(), mine.len());
    for h in &mine {
        let row = rows
            .iter()
            .find(|r| r["positionId"] == h.id.to_string())
            .expect("every position listed");
        assert_eq!(raw(&row["bustPriceRaw"]), u128::from(h.bust));
        assert_eq!(raw(&row["notionalRaw"]), h.notional);
        let leverage = u128::from(row["leverage"].as_u64().unwrap());
        assert_eq!(raw(&row["marginRaw"]) * leverage, h.notional);
    }
    let total: u128 = mine.iter().map(|h| h.notional).sum();
    assert_eq!(raw(&v["totals"]["notionalRaw"]), total);
    let locked = sim
        .server
        .shared
        .with_engine(|e| e.account(wallet).unwrap().state.locked);
    assert_eq!(raw(&v["risk"]["lockedRaw"]), locked);

    // The regrouped map: every standing BTC position in exactly one bucket; no live map claimed.
    let v = json_of(
        &sim,
        &[
            "liquidation-map",
            "--market",
            "BTC",
            "--wallets",
            "44",
            "--bucket-usd",
            "1000",
        ],
    )
    .await;
    assert_eq!(v["protocolMap"]["available"], false);
    let standing_btc: Vec<&Held> = book
        .iter()
        .filter(|h| h.market == 0 && standing(h, mark0))
        .collect();
    let mut count = 0;
    for b in v["buckets"].as_array().unwrap() {
        let (low, high) = (
            raw(&b["priceLowRaw"]) as u64,
            raw(&b["priceHighRaw"]) as u64,
        );
        let here: Vec<&&Held> = standing_btc
            .iter()
            .filter(|h| (low..high).contains(&h.bust))
            .collect();
        assert!(!here.is_empty(), "only non-empty buckets");
        assert_eq!(b["positions"], here.len());
        count += here.len();
    }
    assert_eq!(count, standing_btc.len());

    // Clusters: the largest long bucket below the mark, by notional.
    let v = json_of(
        &sim,
        &[
            "bust-clusters",
            "--market",
            "BTC",
            "--wallets",
            "44",
            "--clusters",
            "2",
            "--bucket-usd",
            "1000",
        ],
    )
    .await;
    let mut longs: std::collections::BTreeMap<u64, u128> = Default::default();
    for h in standing_btc.iter().filter(|h| h.is_long) {
        *longs.entry(h.bust / 10_000).or_default() += h.notional;
    }
    let best = longs.values().max().copied().unwrap();
    let clusters = v["longClusters"].as_array().unwrap();
    assert_eq!(clusters.len(), longs.len().min(2));
    assert_eq!(raw(&clusters[0]["notionalRaw"]), best);
    assert!(raw(&clusters[0]["priceHighRaw"]) as u64 <= mark0 + 10_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_arguments_are_refused_with_exit_2() {
    let sim = crowded(2).await;
    let cases: [(&[&str], &str); 12] = [
        (
            &["bust-map", "--market", "BTC", "--wallets", "0"],
            "--wallets",
        ),
        (
            &["bust-map", "--market", "BTC", "--wallets", "45"],
            "--wallets",
        ),
        (
            &["bust-map", "--market", "BTC", "--cascade-percent", "25.01"],
            "--cascade-percent",
        ),
        (
            &["bust-map", "--market", "BTC", "--cascade-percent", "-1"],
            "--cascade-percent",
        ),
        (
            &["bust-map", "--market", "BTC", "--max-buckets", "201"],
            "--max-buckets",
        ),
        (
            &["bust-map", "--market", "BTC", "--bucket-usd", "0"],
            "--bucket-usd",
        ),
        (&["bust-map", "--market", "DOGE"], "--market"),
        (&["closest-to-bust", "--limit", "51"], "--limit"),
        (&["closest-to-bust", "--side", "up"], "--side"),
        (
            &["closest-to-bust", "--max-distance-percent", "x"],
            "--max-distance-percent",
        ),
        (
            &["bust-clusters", "--market", "ETH", "--clusters", "11"],
            "--clusters",
        ),
        (&["wallet-risk", "0x12"], "<ADDR>"),
    ];
    for (args, flag) in cases {
        let out = run(&sim, args).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = support::text(&out.stderr);
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    // In JSON too, with the flag named.
    let out = run(
        &sim,
        &[
            "bust-map",
            "--market",
            "BTC",
            "--cascade-percent",
            "30",
            "--json",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        support::stdout_json(&out)["error"]["field"],
        "cascade-percent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_waits_out_a_429_from_the_leaderboard() {
    let sim = crowded(6).await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig::default(),
    );
    // The leaderboard is the scan's first read: it answers 429 with Retry-After: 1 once.
    sim.control(
        "/sim/faults",
        json!({"readStatus": 429, "readFailures": 1, "retryAfterS": 1}),
    )
    .await;
    let started = Instant::now();
    let s = scan(&http, 44).await.expect("the retry succeeds");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited for Retry-After"
    );
    assert_eq!(s.accounts(44).len(), 6);
    // A Retry-After past the client's patience is not waited for: the scan fails, naming it.
    sim.control(
        "/sim/faults",
        json!({"readStatus": 429, "readFailures": 1, "retryAfterS": 3600}),
    )
    .await;
    let started = Instant::now();
    let e = scan(&http, 44).await.unwrap_err().to_string();
    assert!(e.contains("429"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_scan_is_reused_and_a_wider_one_is_not_assumed() {
    let sim = crowded(6).await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig::default(),
    );
    let cache = ScanCache::new();
    let first = cache.get(&http, 10).await.unwrap();
    // Every read fails now: a request the cached scan covers is answered from it.
    sim.control("/sim/faults", json!({"readStatus": 503})).await;
    let again = cache.get(&http, 5).await.unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    // More wallets than were scanned: a new scan, which meets the failing exchange.
    assert!(cache.get(&http, 20).await.is_err());
}
