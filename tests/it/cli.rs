//! The scriptable commands, run as a user would: the real binary against a loopback fixture
//! exchange serving live-format answers, and `--offline` with the shipped parameters.

use serde_json::Value;

use crate::support::{self, FixtureServer, open_args, run, stdout_json, text};

fn live<'a>(server: &'a FixtureServer, args: &[&'a str]) -> Vec<String> {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend([
        "--api".into(),
        server.api(),
        "--info-url".into(),
        server.info(),
    ]);
    all
}

fn run_live(server: &FixtureServer, args: &[&str]) -> std::process::Output {
    let all = live(server, args);
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    run(&refs)
}

/// The seed's quote example, offline, as JSON.
const SEED_QUOTE: [&str; 15] = [
    "quote",
    "--offline",
    "--market",
    "BTC",
    "--side",
    "long",
    "--margin",
    "100",
    "--leverage",
    "500",
    "--entry",
    "82800.3",
    "--move",
    "0.1",
    "--json",
];

#[test]
fn offline_quote_reproduces_the_seed_example() {
    let out = run(&SEED_QUOTE);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let q = stdout_json(&out);
    assert_eq!(q["bustPrice"], 82674.0);
    assert_eq!(q["bustPriceRaw"], "826740");
    assert_eq!(q["distanceToBustPct"], 0.1525);
    assert_eq!(q["entrySource"], "given");
    assert_eq!(q["notionalUsd"], 50000.0);
    assert_eq!(q["openValidation"]["accepted"], true);
    assert_eq!(q["parameters"]["source"], "offline");
    let s = &q["scenarios"][0];
    assert_eq!(s["exitPrice"], 82883.1);
    assert_eq!(s["priceMovePct"], 0.1);
    assert_eq!(s["rawPnlUsd"], 50.0);
    assert_eq!(s["adjustedPnlUsd"], 36.99);
    assert_eq!(s["winFeeUsd"], 0.74);
    assert_eq!(s["netPnlUsd"], 36.25);
    assert_eq!(s["netReturnOnMarginPct"], 36.2);
    assert_eq!(s["keptFractionOfRawGain"], 0.7249);
    assert_eq!(s["liquidated"], false);
    // The exact integers agree with each other: net = adjusted − fee.
    let n = |k: &str| s[k].as_str().unwrap().parse::<i128>().unwrap();
    assert_eq!(n("netPnlRaw"), n("adjustedPnlRaw") - n("winFeeRaw"));
    assert_eq!(n("winFeeRaw"), n("adjustedPnlRaw") * 2 / 100);

    let human = run(&[
        "quote",
        "--offline",
        "--market",
        "BTC",
        "--side",
        "long",
        "--margin",
        "100",
        "--leverage",
        "500",
        "--entry",
        "82800.3",
        "--move",
        "0.1",
    ]);
    let screen = text(&human.stdout);
    assert!(screen.contains("bust 82,674.0 (0.1525% away)"), "{screen}");
    assert!(screen.contains("+$36.25"), "{screen}");
    assert!(screen.contains("offline"), "{screen}");
}

#[test]
fn offline_ladder_of_scenarios_includes_the_bust() {
    let out = run(&[
        "quote",
        "--offline",
        "--market",
        "ETH",
        "--side",
        "short",
        "--margin",
        "25",
        "--leverage",
        "5",
        "--entry",
        "2500",
        "--json",
    ]);
    let q = stdout_json(&out);
    let scenarios = q["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 13);
    let bust = scenarios
        .iter()
        .find(|s| s["exitPriceRaw"] == q["bustPriceRaw"])
        .unwrap();
    assert_eq!(bust["liquidated"], true);
    assert_eq!(bust["netPnlUsd"], -25.0);
    assert!(
        scenarios
            .iter()
            .any(|s| s["netPnlUsd"].as_f64().unwrap() > 0.0)
    );
    // Notional $125 is below the launch minimum of $1,000: the quote says so, exactly.
    assert_eq!(q["openValidation"]["accepted"], false);
    assert_eq!(q["openValidation"]["code"], "notional_below_minimum");
    assert_eq!(
        q["openValidation"]["problem"],
        "notional $125.00 is below the minimum of $1,000.00"
    );
}

#[test]
fn offline_needs_an_entry_and_says_so() {
    let out = run(&[
        "quote",
        "--offline",
        "--market",
        "BTC",
        "--side",
        "long",
        "--margin",
        "100",
        "--leverage",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = stdout_json(&out);
    assert_eq!(e["error"]["field"], "entry");
    let out = run(&[
        "close-quote",
        "--offline",
        "--market",
        "ETH",
        "--side",
        "short",
        "--entry",
        "2500",
        "--margin",
        "25",
        "--leverage",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: --exit: is required with --offline"));
}

#[test]
fn bad_input_names_the_field_in_one_line() {
    let base = ["quote", "--offline", "--entry", "82800.3"];
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "--market",
                "BTC",
                "--side",
                "long",
                "--margin",
                "100",
                "--leverage",
                "0",
            ],
            "leverage",
        ),
        (
            &[
                "--market",
                "BTC",
                "--side",
                "long",
                "--margin",
                "100",
                "--leverage",
                "1001",
            ],
            "leverage",
        ),
        (
            &[
                "--market",
                "BTC",
                "--side",
                "long",
                "--margin",
                "-5",
                "--leverage",
                "10",
            ],
            "margin",
        ),
        (
            &[
                "--market",
                "FOO",
                "--side",
                "long",
                "--margin",
                "100",
                "--leverage",
                "10",
            ],
            "market",
        ),
        (
            &[
                "--market",
                "BTC",
                "--side",
                "up",
                "--margin",
                "100",
                "--leverage",
                "10",
            ],
            "side",
        ),
        (
            &[
                "--market",
                "BTC",
                "--side",
                "long",
                "--margin",
                "1e3",
                "--leverage",
                "10",
            ],
            "margin",
        ),
        (
            &[
                "--market",
                "BTC",
                "--side",
                "long",
                "--margin",
                "100",
                "--leverage",
                "10",
                "--move",
                "x",
            ],
            "move",
        ),
    ];
    for (extra, field) in cases {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("error: --{field}: ")),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
        let mut json_args = args.clone();
        json_args.push("--json");
        let out = run(&json_args);
        assert_eq!(out.status.code(), Some(2));
        let e = stdout_json(&out);
        assert_eq!(e["error"]["code"], "invalid_argument");
        assert_eq!(e["error"]["field"], field);
    }
    let out = run(&[
        "typed-data",
        "--type",
        "Close",
        "--message",
        "{not json",
        "--json",
    ]);
    assert_eq!(stdout_json(&out)["error"]["field"], "message");
    let out = run(&[
        "typed-data",
        "--type",
        "Close",
        "--message",
        "{}",
        "--signer",
        "0x12",
        "--json",
    ]);
    assert_eq!(stdout_json(&out)["error"]["field"], "signer");
    let out = run(&["quote", "--market", "BTC", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout_json(&out)["error"]["code"], "usage");
}

/// Refused before any network read, each naming what is wrong: a mixed-case address with a wrong
/// EIP-55 checksum, the zero owner, an empty position id, and opens the relayer would refuse
/// whatever the live state.
#[test]
fn bad_addresses_ids_and_impossible_intents_are_refused() {
    // EIP-55's example with one letter's case flipped.
    let typo = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD";
    let good = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
    let zero = "0x0000000000000000000000000000000000000000";
    let offline_api = ["--api", "http://127.0.0.1:9"];
    let open = |user: &str, instrument: u32, size: &str, leverage: u32| {
        format!(
            r#"{{"user":"{user}","instrumentId":{instrument},"isLong":true,"size":"{size}","leverage":{leverage},"useDebt":false}}"#
        )
    };
    let ten = "10000000000000000000";
    let cases: Vec<(Vec<String>, &str, &str)> = vec![
        (
            vec!["positions".into(), "--owner".into(), typo.into()],
            "owner",
            "EIP-55",
        ),
        (
            vec!["--watch".into(), typo.into(), "positions".into()],
            "watch",
            "EIP-55",
        ),
        (
            vec!["positions".into(), "--owner".into(), zero.into()],
            "owner",
            "zero address",
        ),
        (
            vec!["close".into(), "".into(), "--owner".into(), good.into()],
            "<POSITION_ID>",
            "not a position id",
        ),
        (
            vec!["close".into(), "12a".into(), "--owner".into(), good.into()],
            "<POSITION_ID>",
            "not a position id",
        ),
        (
            vec![
                "typed-data".into(),
                "--type".into(),
                "OpenPosition".into(),
                "--message".into(),
                open(typo, 0, ten, 10),
            ],
            "message",
            "EIP-55",
        ),
        (
            vec![
                "typed-data".into(),
                "--type".into(),
                "OpenPosition".into(),
                "--message".into(),
                open(good, 0, ten, 0),
            ],
            "message",
            "leverage_below_minimum",
        ),
        (
            vec![
                "typed-data".into(),
                "--type".into(),
                "OpenPosition".into(),
                "--message".into(),
                open(good, 0, ten, 1001),
            ],
            "message",
            "leverage_above_maximum",
        ),
        (
            vec![
                "typed-data".into(),
                "--type".into(),
                "OpenPosition".into(),
                "--message".into(),
                open(good, 0, "0", 10),
            ],
            "message",
            "margin_below_minimum",
        ),
        (
            vec![
                "typed-data".into(),
                "--type".into(),
                "OpenPosition".into(),
                "--message".into(),
                open(good, 0, "0", 1000),
            ],
            "message",
            "size: must be more than 0",
        ),
    ];
    for (args, field, says) in cases {
        let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
        all.extend(offline_api);
        all.push("--json");
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", text(&out.stdout));
        let e = stdout_json(&out);
        assert_eq!(e["error"]["field"], field, "{all:?}: {e}");
        assert!(
            e["error"]["message"].as_str().unwrap().contains(says),
            "{all:?}: {e}"
        );
    }
    // Without a checksum (all lowercase or all uppercase) an address is taken as it is.
    let out = run(&[
        "typed-data",
        "--offline",
        "--type",
        "OpenPosition",
        "--message",
        &open(&good.to_lowercase(), 0, ten, 100),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert_eq!(
        stdout_json(&out)["checks"]["notChecked"][0],
        "available balance"
    );
    let upper = format!("0x{}", good[2..].to_uppercase());
    let out = run(&[
        "typed-data",
        "--offline",
        "--type",
        "OpenPosition",
        "--message",
        &open(&upper, 0, ten, 100),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

/// An encoder refuses only what the intent's types and the protocol's fixed ranges forbid; a
/// market's limits (governance changes them) are warnings, from the live exchange when it
/// answers, the launch parameters otherwise, each saying which.
#[test]
fn typed_data_warns_of_market_limits_from_the_live_exchange_or_the_launch_parameters() {
    let open = |instrument: u32, size: &str, leverage: u32| {
        format!(
            r#"{{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","instrumentId":{instrument},"isLong":true,"size":"{size}","leverage":{leverage},"useDebt":false}}"#
        )
    };
    let max = u128::MAX.to_string();
    let server = FixtureServer::start();
    let live = |message: &str| {
        let out = run_live(
            &server,
            &[
                "typed-data",
                "--type",
                "OpenPosition",
                "--json",
                "--message",
                message,
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stdout));
        stdout_json(&out)
    };
    let t = live(&open(7, "10000000000000000000", 10));
    let w = t["warnings"][0].as_str().unwrap();
    assert!(
        w.starts_with("instrumentId: no market 7 on the live exchange (http://127.0.0.1:"),
        "{w}"
    );
    assert!(w.contains("markets: 0 (BTC), 1 (ETH)"), "{w}");
    assert!(
        t["checks"]["checkedAgainst"]
            .as_str()
            .unwrap()
            .starts_with("the live exchange")
    );
    // The largest uint128 encodes exactly, with the maximum notional as a warning.
    let t = live(&open(0, &max, 1000));
    assert_eq!(t["typedData"]["message"]["size"], max.as_str());
    assert!(
        t["warnings"][0]
            .as_str()
            .unwrap()
            .contains("(notional_above_maximum) on the live exchange"),
        "{t}"
    );
    let t = live(&open(0, "10000000000000000000", 1000));
    assert_eq!(t["warnings"], serde_json::json!([]));

    // An exchange that does not answer: the launch parameters, and why.
    let out = run(&[
        "typed-data",
        "--api",
        "http://127.0.0.1:9",
        "--type",
        "OpenPosition",
        "--message",
        &open(0, "1", 1000),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("warning     the relayer would refuse this open (margin_below_minimum) on the launch parameters (mainnet /state/trading of 2026-10-18; the exchange could not be read"), "{shown}");
    assert!(shown.contains("Nothing was signed or sent."), "{shown}");
}

#[test]
fn typed_data_matches_the_open_vector() {
    let out = run(&[
        "typed-data",
        "--offline",
        "--type",
        "OpenPosition",
        "--json",
        "--signer",
        "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23",
        "--message",
        r#"{"user":"0x14791697260E4C9A71F18484C9F997B308E59325","instrumentId":0,"isLong":true,"size":"10000000000000000000","leverage":1000,"useDebt":false,"nonce":3170817,"deadline":"1791864000"}"#,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = stdout_json(&out);
    assert_eq!(t["unsigned"], true);
    assert_eq!(
        t["digest"],
        "0x1151ddb60207e6f09186725b144ba4660e20109adc197cb5b837bf4c08818879"
    );
    assert_eq!(
        t["intentId"],
        "0xc2bc1984b6b08b26186b7579d4a279f24937865b82683d9ed4199f40012cb959"
    );
    assert_eq!(t["typedData"]["domain"]["name"], "String");
    assert_eq!(t["typedData"]["message"]["leverage"], 1000);
    assert_eq!(t["typedData"]["message"]["size"], "10000000000000000000");
    assert_eq!(t["request"]["method"], "eth_signTypedData_v4");
    let inner: Value = serde_json::from_str(t["request"]["params"][1].as_str().unwrap()).unwrap();
    assert_eq!(inner, t["typedData"]);
    assert!(t["defaulted"].as_array().unwrap().is_empty());

    // Nonce and deadline default when omitted; a wallet type refuses a foreign signer.
    let out = run(&[
        "typed-data",
        "--type",
        "Claim",
        "--json",
        "--message",
        r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325"}"#,
    ]);
    let t = stdout_json(&out);
    assert_eq!(t["defaulted"], serde_json::json!(["nonce", "deadline"]));
    let nonce: u64 = t["typedData"]["message"]["nonce"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(nonce >= 256 && nonce.is_multiple_of(256) && nonce < (1 << 32));
    assert_eq!(t["typedData"]["domain"]["name"], "PaperStaking");
    let out = run(&[
        "typed-data",
        "--type",
        "WithdrawToCore",
        "--signer",
        "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23",
        "--message",
        r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","amount":"10000000"}"#,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("signed by the wallet"));
    let out = run(&[
        "typed-data",
        "--type",
        "WithdrawToCore",
        "--message",
        r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","amount":"9999999"}"#,
    ]);
    assert!(text(&out.stderr).contains("minimum withdrawal is 10 USDC"));
}

/// A payload handed to another wallet is signed by a person, elsewhere: its default deadline is
/// the browser terminal's hour (not the 120 s of an open this client signs and sends itself),
/// and the answer says when it lapses.
#[test]
fn typed_data_for_another_wallet_lasts_an_hour_and_says_until_when() {
    let message = r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","instrumentId":0,"isLong":true,"size":"10000000000000000000","leverage":100,"useDebt":false}"#;
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let out = run(&[
        "typed-data",
        "--offline",
        "--type",
        "OpenPosition",
        "--json",
        "--message",
        message,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = stdout_json(&out);
    let deadline = t["typedData"]["message"]["deadline"].as_u64().unwrap();
    assert!(
        (before + 3600..=before + 3605).contains(&deadline),
        "an hour out, not an open's 120 s: {deadline} vs now {before}"
    );
    assert_eq!(t["deadline"]["unix"], deadline);
    let left = t["deadline"]["secondsLeft"].as_u64().unwrap();
    assert!((3595..=3600).contains(&left), "{t}");
    let said = t["deadline"]["text"].as_str().unwrap();
    assert!(
        said.starts_with("sign by ") && said.contains(" UTC (in 60 min)"),
        "{said}"
    );

    // A person reading the human form is told the same.
    let out = run(&[
        "typed-data",
        "--offline",
        "--type",
        "OpenPosition",
        "--message",
        message,
    ]);
    let shown = text(&out.stdout);
    assert!(
        shown.contains("deadline    sign by ") && shown.contains("(in 60 min)"),
        "{shown}"
    );
    // A deadline given is kept, and one already past says so.
    let out = run(&[
        "typed-data",
        "--type",
        "Claim",
        "--json",
        "--message",
        r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","deadline":"1791864000"}"#,
    ]);
    let t = stdout_json(&out);
    assert_eq!(t["deadline"]["unix"], 1_791_864_000u64);
    assert!(
        t["deadline"]["text"]
            .as_str()
            .unwrap()
            .contains("has passed"),
        "{t}"
    );
}

#[test]
fn live_markets_table_and_json() {
    let server = FixtureServer::start();
    let out = run_live(&server, &["markets", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let m = stdout_json(&out);
    assert_eq!(m["tradingPaused"], false);
    assert_eq!(m["limits"]["minMarginUsd"], 10.0);
    assert_eq!(m["limits"]["minNotionalUsd"], 1000.0);
    assert_eq!(m["limits"]["winFeePct"], 2.0);
    let btc = &m["markets"][0];
    assert_eq!(btc["symbol"], "BTC");
    // mid of 828000 and 828006 at scale 10.
    assert_eq!(btc["markPriceRaw"], "828003");
    assert_eq!(btc["markPrice"], 82800.3);
    assert_eq!(btc["status"], "active");
    assert_eq!(btc["maxLeverage"], 1000);
    assert_eq!(btc["maxPositionNotionalUsd"], 10_000_000.0);
    // 2007.843665405887498352 BTC long at $82,800.3 = $166,250,057.8487…
    assert_eq!(btc["long"]["oiUsd"], 166_250_057.85);
    assert_eq!(m["markets"][1]["markPriceRaw"], "250001");

    let out = run_live(&server, &["markets"]);
    let screen = text(&out.stdout);
    assert!(screen.contains("BTC"), "{screen}");
    assert!(screen.contains("82,800.3"), "{screen}");
    assert!(screen.contains("min margin $10.00"), "{screen}");
    assert!(screen.contains("live from http://127.0.0.1"), "{screen}");
}

/// Untrusted text in JSON output is sanitised like on screen: C1 controls (the 8-bit CSI),
/// bidi overrides and escape sequences never reach a program's terminal.
#[test]
fn markets_json_sanitises_the_exchanges_strings() {
    let server = FixtureServer::start();
    {
        let mut f = server.fixture.lock().unwrap();
        let mut trading: Value = serde_json::from_str(&f.trading).unwrap();
        trading["intakeControls"][2] = serde_json::json!([
            "closePosition\u{9b}31m\u{202e}",
            "\u{1b}]0;owned\u{7}withdrawToCore\u{1b}[2J",
        ]);
        f.trading = trading.to_string();
    }
    let out = run_live(&server, &["markets", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let raw = text(&out.stdout);
    for bad in ['\u{9b}', '\u{202e}', '\u{1b}', '\u{7}'] {
        assert!(!raw.contains(bad), "{bad:?} reached stdout: {raw:?}");
    }
    let m = stdout_json(&out);
    assert_eq!(
        m["pausedActions"],
        serde_json::json!(["closePosition", "withdrawToCore"]),
        "{m}"
    );
}

#[test]
fn live_quote_uses_the_mark_and_live_limits() {
    let server = FixtureServer::start();
    let out = run_live(
        &server,
        &[
            "quote",
            "--market",
            "btc",
            "--side",
            "long",
            "--margin",
            "100",
            "--leverage",
            "500",
            "--move",
            "0.1",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let q = stdout_json(&out);
    assert_eq!(q["entrySource"], "live mark");
    assert_eq!(q["entryPrice"], 82800.3);
    assert_eq!(q["scenarios"][0]["netPnlUsd"], 36.25);
    assert_eq!(q["parameters"]["source"], "live");

    // A market switched to close-only refuses opens, with the reason.
    let paused = crate::support::MAINNET_TRADING.replacen(
        "true,false,false,false,false,null",
        "true,false,false,false,true,null",
        1,
    );
    server.fixture.lock().unwrap().trading = paused;
    let out = run_live(
        &server,
        &[
            "quote",
            "--market",
            "BTC",
            "--side",
            "short",
            "--margin",
            "100",
            "--leverage",
            "50",
            "--json",
        ],
    );
    let q = stdout_json(&out);
    assert_eq!(q["openValidation"]["accepted"], false);
    assert_eq!(q["openValidation"]["code"], "market_not_openable");
    assert_eq!(
        q["openValidation"]["problem"],
        "BTC is not open for new positions (closeOnly)"
    );

    let out = run_live(
        &server,
        &[
            "ladder", "--market", "ETH", "--side", "long", "--margin", "50", "--json",
        ],
    );
    let l = stdout_json(&out);
    let steps = l["steps"].as_array().unwrap();
    assert_eq!(
        steps
            .iter()
            .map(|s| s["leverage"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2, 3, 5, 10, 25, 50, 100, 250, 500, 1000]
    );
    assert_eq!(steps[0]["valid"], false);
    assert_eq!(steps[0]["invalidCode"], "notional_below_minimum");
    assert_eq!(steps[5]["valid"], true);
    assert_eq!(l["markPrice"], 2500.01);

    let out = run_live(
        &server,
        &[
            "close-quote",
            "--market",
            "ETH",
            "--side",
            "short",
            "--entry",
            "2600",
            "--margin",
            "25",
            "--leverage",
            "5",
            "--json",
        ],
    );
    let c = stdout_json(&out);
    assert_eq!(c["exitSource"], "live mark");
    assert_eq!(c["exitPriceRaw"], "250001");
    assert!(c["netPnlUsd"].as_f64().unwrap() > 0.0);
    assert!(c["keptFraction"].as_f64().unwrap() > 0.0);
}

#[test]
fn transient_failures_are_ridden_out_and_hard_ones_reported() {
    let server = FixtureServer::start();
    server.fixture.lock().unwrap().fail_trading = 2;
    let out = run_live(&server, &["markets", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    server.fixture.lock().unwrap().throttle_trading = 1;
    let out = run_live(&server, &["markets", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.fixture.lock().unwrap().trading_hits, 5);

    server.fixture.lock().unwrap().fail_trading = 10;
    let out = run_live(&server, &["markets", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_json(&out)["error"]["code"], "unreachable");
    server.fixture.lock().unwrap().fail_trading = 0;

    let v2 = crate::support::MAINNET_TRADING.replace("\"schemaVersion\":1", "\"schemaVersion\":2");
    server.fixture.lock().unwrap().trading = v2;
    let out = run_live(&server, &["markets"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("unsupported schema version 2"),
        "{}",
        text(&out.stderr)
    );

    // Nothing listens on port 9 of loopback.
    let out = run(&[
        "markets",
        "--api",
        "http://127.0.0.1:9",
        "--info-url",
        "http://127.0.0.1:9/info",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_json(&out)["error"]["code"], "unreachable");
}

#[test]
fn a_missing_book_is_reported_not_guessed() {
    let server = FixtureServer::start();
    server
        .fixture
        .lock()
        .unwrap()
        .books
        .retain(|(c, _, _)| c != "ETH");
    let out = run_live(&server, &["markets", "--json"]);
    let m = stdout_json(&out);
    assert!(m["markets"][1]["markPrice"].is_null());
    assert!(
        m["markets"][1]["markError"]
            .as_str()
            .unwrap()
            .contains("l2Book ETH")
    );
    let out = run_live(
        &server,
        &[
            "quote",
            "--market",
            "ETH",
            "--side",
            "long",
            "--margin",
            "100",
            "--leverage",
            "10",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("pass --entry"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quote_commands_work_against_the_simulator_unchanged() {
    let sim = crate::simkit::Sim::manual().await;
    sim.pin("BTC", "82800.3").await;
    let api = sim.server.base_url();
    let info = sim.server.info_url();
    let outputs = tokio::task::spawn_blocking(move || {
        let with = |args: &[&str]| {
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["--api", &api, "--info-url", &info, "--json"]);
            run(&all)
        };
        (
            with(&["markets"]),
            with(&[
                "quote",
                "--market",
                "BTC",
                "--side",
                "long",
                "--margin",
                "100",
                "--leverage",
                "500",
                "--move",
                "0.1",
            ]),
            with(&[
                "ladder", "--market", "BTC", "--side", "short", "--margin", "50",
            ]),
            with(&[
                "close-quote",
                "--market",
                "BTC",
                "--side",
                "long",
                "--entry",
                "82000",
                "--margin",
                "25",
                "--leverage",
                "5",
            ]),
        )
    })
    .await
    .unwrap();
    let (markets, quote, ladder, close) = outputs;
    for out in [&markets, &quote, &ladder, &close] {
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert_eq!(
        stdout_json(&markets)["markets"][0]["markPriceRaw"],
        "828003"
    );
    let q = stdout_json(&quote);
    assert_eq!(q["entrySource"], "live mark");
    assert_eq!(q["bustPriceRaw"], "826740");
    assert_eq!(q["scenarios"][0]["netPnlUsd"], 36.25);
    assert_eq!(stdout_json(&ladder)["steps"].as_array().unwrap().len(), 11);
    assert_eq!(stdout_json(&close)["exitPriceRaw"], "828003");
}

/// Run the binary, failing (not hanging) if it is still running after `limit`: before the
/// bounds, out-of-range simulator flags were accepted and the simulator served until killed.
fn run_within(args: &[&str], limit: std::time::Duration) -> std::process::Output {
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"))
        .args(args)
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("PAPERTRADE_TUI_DATA_DIR", home.path().join("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} was accepted: still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// `--crowd 100000000` grew memory at 20 MB/s and `--relayer-delay-ms u64::MAX` wrapped to
/// "settle at once"; both, and a sub-100 ms heartbeat, are usage errors naming the flag.
#[test]
fn out_of_range_simulator_flags_are_refused_by_name() {
    let max = u64::MAX.to_string();
    let cases: [(&[&str], &str); 5] = [
        (&["sim", "--port", "0", "--crowd", "100000000"], "--crowd"),
        (
            &["sim", "--port", "0", "--relayer-delay-ms", &max],
            "--relayer-delay-ms",
        ),
        (
            &["sim", "--port", "0", "--relayer-delay-ms", "3600001"],
            "--relayer-delay-ms",
        ),
        (
            &["sim", "--port", "0", "--heartbeat-ms", "50"],
            "--heartbeat-ms",
        ),
        (&["demo", "--crowd", "1001"], "--crowd"),
    ];
    for (args, flag) in cases {
        let out = run_within(args, std::time::Duration::from_secs(20));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let err = text(&out.stderr);
        assert!(
            err.contains(flag) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

/// `… | head`: the reader goes away before the output is written. The command ends quietly
/// (exit 0, nothing on stderr) instead of panicking on the broken pipe, with `--json` and
/// without.
#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    use std::process::{Command, Stdio};
    // The seed's quote without `--json`: the human table and the JSON both meet the pipe.
    let quote = &SEED_QUOTE[..SEED_QUOTE.len() - 1];
    for json in [true, false] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"))
            .args(quote)
            .args(json.then_some("--json"))
            .env_clear()
            .env("HOME", std::env::temp_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end at once: the command's first write meets a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "json {json}: {err}");
        assert!(!err.contains("panicked"), "json {json}: {err}");
    }
}

/// Every command's human output goes through `say!` (which ends quietly on a broken pipe):
/// a `println!` in the CLI would bring the panic back for that command.
#[test]
fn the_cli_prints_through_one_writer() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        for (i, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            // `eprintln!` and the like are stderr's, which a closed stdout does not affect.
            let bare = |mac: &str| {
                code.match_indices(mac)
                    .any(|(at, _)| !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            };
            if bare("print!(") || bare("println!(") {
                offenders.push(format!("{}:{}: {line}", path.display(), i + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "use say! instead:\n{}",
        offenders.join("\n")
    );
}

/// A link that cannot be read, or prefill flags before a command they cannot fill, are bad input:
/// exit 2 with the reason, before any key, passphrase or terminal is touched.
/// A decimal comma is neither read as a thousands separator (`10,5` → 105) nor guessed to be a
/// decimal: refused with the reason, before any read, on every money flag.
#[test]
fn a_comma_only_groups_thousands_in_money() {
    let owner = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23";
    // Port 9 answers nothing: a refusal here was made before any network read.
    let far = ["--api", "http://127.0.0.1:9", "--owner", owner, "--json"];
    let cases: [(&[&str], &str); 4] = [
        (&["withdraw", "--amount", "10,5", "--yes"], "amount"),
        (&["deposit", "--amount", "25,50", "--yes"], "amount"),
        (
            &[
                "quote",
                "--offline",
                "--entry",
                "82800.3",
                "--market",
                "BTC",
                "--side",
                "long",
                "--leverage",
                "10",
                "--margin",
                "0,5",
            ],
            "margin",
        ),
        (
            &[
                "quote",
                "--offline",
                "--entry",
                "82.800,3",
                "--market",
                "BTC",
                "--side",
                "long",
                "--leverage",
                "10",
                "--margin",
                "100",
            ],
            "entry",
        ),
    ];
    for (args, field) in cases {
        let all: Vec<&str> = args.iter().chain(&far).copied().collect();
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", text(&out.stderr));
        let e = stdout_json(&out);
        assert_eq!(e["error"]["field"], field, "{e}");
        let message = e["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("has a comma that does not separate thousands"),
            "{all:?}: {message}"
        );
    }
    // A real thousands group still reads as one.
    let out = run(&[
        "quote",
        "--offline",
        "--entry",
        "82,800.3",
        "--market",
        "BTC",
        "--side",
        "long",
        "--leverage",
        "10",
        "--margin",
        "1,000",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(stdout_json(&out)["marginUsd"], 1000.0);
}

/// Conflicting input is refused, not resolved silently: a typed-data message giving a key twice,
/// two different `--watch` wallets.
#[test]
fn conflicting_input_is_refused() {
    let out = run(&[
        "typed-data",
        "--offline",
        "--type",
        "OpenPosition",
        "--message",
        r#"{"user":"0x2c7536e3605d9c16a7a3d7b1898e529396a65c23","instrumentId":0,"isLong":true,"size":"10000000000000000000","size":"1000000000000000000000","leverage":10,"useDebt":false}"#,
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = stdout_json(&out);
    assert_eq!(e["error"]["field"], "message", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the key \"size\" is given twice"),
        "{e}"
    );
    let (a, b) = (
        "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23",
        "0x14791697260e4c9a71f18484c9f997b308e59325",
    );
    for args in [
        // Port 9 answers nothing: were the flag taken, the run would fail there, not exit 2.
        vec![
            "--watch",
            a,
            "positions",
            "--watch",
            b,
            "--api",
            "http://127.0.0.1:9",
        ],
        vec![
            "--watch",
            a,
            "positions",
            &format!("--watch={b}"),
            "--api",
            "http://127.0.0.1:9",
        ],
        vec![
            "--api",
            "http://127.0.0.1:8",
            "markets",
            "--api",
            "http://127.0.0.1:9",
        ],
    ] {
        let mut all = args.clone();
        all.push("--json");
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let e = stdout_json(&out);
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(&format!(
                    "{}: is given twice with different values",
                    args[0]
                )),
            "{e}"
        );
    } // A backend that does not exist is refused even where no key is stored.
    let out = run(&[
        "--key-backend",
        "keyrnig",
        "quote",
        "--offline",
        "--market",
        "BTC",
        "--side",
        "long",
        "--margin",
        "100",
        "--leverage",
        "10",
        "--entry",
        "82800",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let e = stdout_json(&out);
    assert_eq!(e["error"]["field"], "key-backend", "{e}");
}

/// A negative number is said as that, naming its flag, not as clap's "unexpected argument '-1'".
#[test]
fn a_negative_number_names_its_flag() {
    let cases: [(&[&str], &str); 5] = [
        (&["withdraw", "--amount", "-1"], "amount"),
        (&["deposit", "--amount", "-10.5", "--yes"], "amount"),
        (&["close", "--all", "--wait", "-1"], "wait"),
        (&["leaderboard", "--page", "-2"], "page"),
        (&["demo", "--balance", "-5"], "balance"),
    ];
    for (args, field) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!("error: --{field}: cannot be negative, got \"-")),
            "{args:?}: {stderr}"
        );
        let mut json_args = args.to_vec();
        json_args.push("--json");
        let e = stdout_json(&run(&json_args));
        assert_eq!(e["error"]["code"], "invalid_argument", "{e}");
        assert_eq!(e["error"]["field"], field, "{e}");
    }
    // An unknown flag is still a usage error.
    let out = run(&["withdraw", "--amount", "10", "-x"]);
    assert!(text(&out.stderr).contains("unexpected argument '-x'"));
}

#[test]
fn unreadable_links_and_misplaced_prefills_are_bad_input() {
    for args in [
        vec!["--link", "not a link"],
        vec![
            "open-link",
            "ftp://papertrade-terminal.pages.dev/?market=BTC",
        ],
        vec![
            "open-link",
            "https://papertrade-terminal.pages.dev/?embed=1",
        ],
        vec!["demo", "--link", "?"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with("error: --link: "), "{args:?}: {stderr}");
    }
    let out = run(&["--market", "BTC", "markets", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let e = stdout_json(&out);
    assert_eq!(e["error"]["field"], "market", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot stand before `markets`"),
        "{e}"
    );
    let out = run(&["--link", "?market=BTC", "--market", "ETH"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a link and a flag: clap refuses"
    );
}

/// A world-writable data dir was refused late and inconsistently (logs written first; `open`
/// exited 1, `key new` 2), and `data_dir = "~/x"` made a directory named `~` (issue 20): the data
/// dir is resolved and checked before anything is written, the same way for every command.
#[cfg(unix)]
#[test]
fn the_data_dir_is_checked_before_anything_is_written() {
    use std::os::unix::fs::PermissionsExt;
    let open_dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(open_dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let offline = [
        "--api",
        "http://127.0.0.1:9",
        "--info-url",
        "http://127.0.0.1:9/info",
    ];
    for args in [
        vec!["key", "new"],
        open_args("BTC", "long", "50", "10", &[]),
        vec!["markets"],
    ] {
        let mut all = args.clone();
        all.extend_from_slice(&offline);
        let (mut command, _home) = support::command(&all);
        let out = command
            .env("PAPERTRADE_TUI_DATA_DIR", open_dir.path())
            .env(
                "PAPERTRADE_TUI_OWNER",
                "0x00000000000000000000000000000000000000aa",
            )
            .env("PAPERTRADE_TUI_PASSPHRASE", "correct horse battery")
            .output()
            .unwrap();
        let err = support::text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("writable by every user"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_dir(open_dir.path()).unwrap().count(),
            0,
            "{args:?}: nothing written"
        );
    }

    // The config file's `~/` is the home directory; `""` and relative paths are refused.
    let work = tempfile::tempdir().unwrap();
    for (data_dir, refused) in [
        ("~/trading", None),
        ("", Some("is empty")),
        ("rel/x", Some("is relative")),
    ] {
        let (mut command, home) = support::command(&["markets", "--api", "http://127.0.0.1:9"]);
        let config = home.path().join("config.toml");
        std::fs::write(&config, format!("data_dir = {data_dir:?}\n")).unwrap();
        let out = command
            .env_remove("PAPERTRADE_TUI_DATA_DIR")
            .env("PAPERTRADE_TUI_CONFIG", &config)
            .current_dir(work.path())
            .output()
            .unwrap();
        let err = support::text(&out.stderr);
        match refused {
            None => assert!(home.path().join("trading/logs").is_dir(), "{err}"),
            Some(why) => {
                assert_eq!(out.status.code(), Some(2), "{data_dir:?}: {err}");
                assert!(err.contains(why) && err.contains("config file"), "{err}");
            }
        }
        assert_eq!(
            std::fs::read_dir(work.path()).unwrap().count(),
            0,
            "{data_dir:?}: nothing made in the working directory (no `~`)"
        );
    }
}

/// `config` means the config file and nothing else: the session key and the owner's keystore
/// answer `key`, the data directory and an environment variable `environment` (all exit 2, the
/// caller must change something); every one of them said `config` before.
#[test]
fn errors_name_what_to_change_config_key_or_environment() {
    const OWNER: &str = "0x00000000000000000000000000000000000000aa";
    let offline = ["--json", "--api", "http://127.0.0.1:9"];
    let error = |args: &[&str], env: &[(&str, &str)]| -> (Option<i32>, Value) {
        let mut all = args.to_vec();
        all.extend_from_slice(&offline);
        let (mut command, home) = support::command(&all);
        let bad = home.path().join("bad.toml");
        std::fs::write(&bad, "deadlines = 3\n").unwrap();
        for (k, v) in env {
            command.env(k, v.replace("{bad}", bad.to_str().unwrap()));
        }
        let out = command.output().unwrap();
        (out.status.code(), stdout_json(&out)["error"].clone())
    };
    let (code, e) = error(&["markets"], &[("PAPERTRADE_TUI_CONFIG", "{bad}")]);
    assert_eq!((code, &e["code"]), (Some(2), &"config".into()), "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("config file"),
        "{e}"
    );

    let keys = ["--owner", OWNER, "--key-backend", "keystore"];
    let register = [&["key", "register", "--external"][..], &keys].concat();
    let (code, e) = error(&register, &[]);
    assert_eq!((code, &e["code"]), (Some(2), &"key".into()), "{e}");
    assert!(e["message"].as_str().unwrap().contains("key new"), "{e}");

    let new = [&["key", "new"][..], &keys].concat();
    let (code, e) = error(&new, &[("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "5")]);
    assert_eq!((code, &e["code"]), (Some(2), &"environment".into()), "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N"),
        "{e}"
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let open = tempfile::tempdir().unwrap();
        std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let dir = open.path().to_str().unwrap();
        let (code, e) = error(&["markets", "--data-dir", dir], &[]);
        assert_eq!((code, &e["code"]), (Some(2), &"environment".into()), "{e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("writable by every user"),
            "{e}"
        );
    }
}
