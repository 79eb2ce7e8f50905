//! Every decoder of outside input, fed garbage: random bytes, truncated and mutated valid
//! samples, random JSON. Each must answer `Err` (or a value), never panic, never hang. The
//! inputs come from the network (SSE framing, every wire type), the command line (typed-data
//! messages) and the disk (config, keystores).

use papertrade_tui::client::limits::SSE_EVENT_CAP;
use papertrade_tui::client::sse::{SseItem, SseParser};
use papertrade_tui::config::FileConfig;
use papertrade_tui::keys::{Passphrase, load_owner_keystore};
use papertrade_tui::protocol::account::{
    AccountFold, ClosedPosition, Frame, IntentOutcome, Liveness, Operation, Position,
};
use papertrade_tui::protocol::eip712::{
    CancelIntent, Claim, Close, Intent, OpenPosition, RegisterSessionKey, Signed, Stake,
    Strictness, Unstake, WithdrawToCore,
};
use papertrade_tui::protocol::hyperliquid::{Candle, L2Book};
use papertrade_tui::protocol::math::price_raw_from_text;
use papertrade_tui::protocol::reads::{
    MarketStats, QueueRank, QueueSummary, RecentTrades, RelayerHealth, Summary,
};
use papertrade_tui::protocol::relayer::decode_answer;
use papertrade_tui::protocol::trading::TradingState;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value};

const TRADING: &str = include_str!("../../assets/trading_mainnet.json");
const CONFIG: &str = include_str!("../../config.example.toml");
const WALLET: &str = "0xa9f28db0543b215eb2705740f10258c3d000cefd";

// Live-format samples (§3), trimmed where long.
const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,"indexedThroughTimestamp":1791862827,"sessionKeys":[["0x3f531f402502754977d21725fa31bfaacbed3562","1794285240"]],"walletRevision":48399562,"queueRevision":"881","balance":"234249163328500998503","queued":"0","locked":"10000000000000000000","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"},"queueNodeCount":0,"consumableDebt":"0","paper":{"balance":"307408189127066828","staked":"2148971300842266809833","pendingBase":"539307779344086270","rewardDebt":"22582801164825882659"},"lifetime":{"depositedRaw":"209440065000000000000","withdrawnRaw":"0","realizedPnlRaw":"44809098328500998503","feesPaidRaw":"2496246575165132132","tradedNotionalRaw":"275000000000000000000000","paperRewardsClaimedRaw":"0"},"openPositions":[["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,"0xa2e19a7fd16ba48958d0663302f2cf9071c8ba4b75a7686931f905f04f51b2d5"]],"operations":[["0xbacd5a3f1cd8bd1b7bfd0a16bd56a5a51d8f3dd6a5c6e6e6c1f8d2b8e2b14937","openPosition",0,false,false,"10000000000000000000",100,1791862862888,"1791862952",null]],"accountRevision":1}"#;
const PATCH: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","accountRevision":2,"baseAccountRevision":1,"state":{"indexedThroughBlock":48399623,"walletRevision":48399623,"queueRevision":"883","balance":"244141022096051419353","locked":"0","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"244141022096051419353","availableQueued":"0"}},"lifetime":{"depositedRaw":"209440065000000000000","withdrawnRaw":"0","realizedPnlRaw":"44700957096051419353","feesPaidRaw":"2496246575165132132","tradedNotionalRaw":"275000000000000000000000","paperRewardsClaimedRaw":"0"},"addedPositions":[],"removedPositionIds":["411276"],"closedPositions":[["411276",0,true,"10000000000000000000",100,false,"-108141232449579150","2766363925334821349"]],"addedOperations":[],"removedOperationIds":["0xbacd5a3f1cd8bd1b7bfd0a16bd56a5a51d8f3dd6a5c6e6e6c1f8d2b8e2b14937"],"intentOutcomes":[["0xbacd5a3f1cd8bd1b7bfd0a16bd56a5a51d8f3dd6a5c6e6e6c1f8d2b8e2b14937","succeeded"]]}"#;
const SUMMARY: &str = r#"{"ok":true,"source":{"block":"48399240","at":1791862483000,"genesis":1791326520000},"balances":{"tvl":"61329613310363150000000000","margin":"2998118568248273593726785","lp":"4499154030980584574848767","reserve":"0","queue":"0"},"activity":{"volume":"888367896494715926270620625820","open":1128},"fees":{"pending":"166456064238868037488","lifetime":"31174963777059996904196661"},"paper":{"supply":"6523155697538734372886664082","staked":"6449325581495324759362035927","trackedLp":"4499154030980584574848767","accumulator":"10508152974861028961272120","tailProgress":"114763668726032459329881425","reserve":"3343415793864991749917162","unallocated":"0","pendingRewards":"166456064238868037488","cliff":"2000000000000000000000000","cap":"5000000000000000000000000","excess":"0","rate":"100000000000000000000","decay":"120000000000000000000000000"}}"#;
const MARKET_STATS: &str = r#"{"ok":true,"markets":{"0":{"volume_24h":"72621829814921472515799306976"},"1":{"volume_24h":"4269000000000000000000"}}}"#;
const QUEUE_SUMMARY: &str = r#"{"ok":true,"source":{"block":"48399239","at":1791862482000},"total":"0","count":0,"largest":null,"front":null}"#;
const TRADES: &str = r#"{"ok":true,"count":1,"events":[{"seq":"48399240000025","ts":1791862483000,"wallet":"0xf522d8f0ea3c5d0350d3a05db1df074ecf0b2fd7","instrument":"BTC","instrumentId":0,"instrumentTerminal":false,"side":"short","leverage":148,"notionalUsd":59200,"intentId":null,"positionId":"408035","kind":"close","entry":null,"exit":83335.5,"pnlUsd":-327.15}]}"#;
const QUEUE_RANK: &str = r#"{"ok":true,"queueRevision":"5646","entries":[{"intentId":"0x668e5a3f1cd8bd1b7bfd0a16bd56a5a51d8f3dd6a5c6e6e6c1f8d2b8e2b1bd7d","position":"37"}]}"#;
const HEALTH: &str = r#"{"ok":true,"ready":true}"#;
const ACCEPTED: &str = r#"{"intentId":"0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","action":"openPosition","state":"queued","queueRevision":"882"}"#;
const REFUSED: &str = r#"{"ok":false,"error":"deadline_expired","message":"This request expired before it was accepted."}"#;
const BOOK: &str = r#"{"coin":"BTC","time":1791862483000,"levels":[[{"px":"82800.0","sz":"1.5","n":3}],[{"px":"82800.6","sz":"2.0","n":4}]]}"#;
const CANDLES: &str = r#"[{"t":1791860000000,"T":1791860899999,"s":"BTC","i":"15m","o":"82800.0","c":"82810.5","h":"82850.0","l":"82790.0","v":"12.5","n":140}]"#;
const OPEN_SIGNED: &str = r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","instrumentId":"0","isLong":true,"size":"10000000000000000000","leverage":"1000","useDebt":false,"nonce":"3170817","deadline":"1791864000","v":"27","r":"0x210ca4a1df62e9e0511ae6aa2e1341de9401e7b7dd13449bac168a2c3856cd82","s":"0x0045a538cc3cf45e31f14f4589d5e1845f0c83cc9c4540c0fc292d62ac72a4f9"}"#;
const REGISTER_MESSAGE: &str = r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","key":"0x2c7536e3605d9c16a7a3d7b1898e529396a65c23","expiry":1794452400,"feeAddress":"0x0000000000000000000000000000000000000000","nonce":"3170816","deadline":1791864000}"#;

/// Field names the decoders look for, so random objects sometimes hit the right keys.
const KEYS: &[&str] = &[
    "address",
    "accountRevision",
    "baseAccountRevision",
    "state",
    "balance",
    "funds",
    "paper",
    "lifetime",
    "openPositions",
    "operations",
    "addedPositions",
    "removedPositionIds",
    "closedPositions",
    "addedOperations",
    "removedOperationIds",
    "intentOutcomes",
    "ok",
    "error",
    "message",
    "code",
    "intentId",
    "action",
    "queueRevision",
    "entries",
    "position",
    "user",
    "instrumentId",
    "isLong",
    "size",
    "leverage",
    "useDebt",
    "nonce",
    "deadline",
    "positionIds",
    "amount",
    "key",
    "expiry",
    "feeAddress",
    "v",
    "r",
    "s",
    "schemaVersion",
    "instruments",
    "px",
    "sz",
    "n",
    "levels",
    "coin",
    "heartbeatIntervalMs",
];

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        "-?[0-9]{1,90}".prop_map(Value::String),
        "0x[0-9a-fA-F]{0,70}".prop_map(Value::String),
        prop::sample::select(&["succeeded", "openPosition", "queued", "\u{1b}[2J", ""][..])
            .prop_map(|s| Value::String(s.into())),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 32, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

/// Walk `path` into `v` and there replace the value, drop it, or add a neighbour.
fn mutate(v: &mut Value, path: &[Index], new: Value, op: u8) {
    let Some((first, rest)) = path.split_first() else {
        *v = new;
        return;
    };
    match v {
        Value::Object(m) if !m.is_empty() => {
            let key = m.keys().nth(first.index(m.len())).unwrap().clone();
            match (rest.is_empty(), op) {
                (true, 1) => drop(m.remove(&key)),
                (true, 2) => drop(m.insert(format!("{key}_"), new)),
                _ => mutate(m.get_mut(&key).unwrap(), rest, new, op),
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = first.index(a.len());
            match (rest.is_empty(), op) {
                (true, 1) => drop(a.remove(i)),
                (true, 2) => a.push(a[i].clone()),
                _ => mutate(&mut a[i], rest, new, op),
            }
        }
        _ => *v = new,
    }
}

/// A valid sample made wrong in one place, or cut short, or plain random bytes.
fn hostile(sample: &'static str) -> impl Strategy<Value = String> {
    let base: Value = serde_json::from_str(sample).unwrap();
    prop_oneof![
        4 => (prop::collection::vec(any::<Index>(), 0..6), arb_json(), 0u8..3).prop_map(
            move |(path, new, op)| {
                let mut v = base.clone();
                mutate(&mut v, &path, new, op);
                v.to_string()
            }
        ),
        1 => any::<Index>().prop_map(move |i| {
            let cut = i.index(sample.len() + 1);
            String::from_utf8_lossy(&sample.as_bytes()[..cut]).into_owned()
        }),
        1 => random_text(),
    ]
}

fn random_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..256)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn object(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    }
}

/// Every typed-data decoder on one message object, leniently (the command line) and strictly
/// (the relayer's wire form), and the signed form that also recovers a signer.
fn every_intent(m: &Map<String, Value>) {
    fn one<I: Intent>(m: &Map<String, Value>) {
        for strictness in [Strictness::Lenient, Strictness::Wire] {
            if let Ok(intent) = I::from_message(m, strictness) {
                let _ = intent.rules();
                let _ = intent.eip712_signing_hash(&I::DOMAIN.eip712());
            }
        }
        let _ = Signed::<I>::from_wire(m);
    }
    one::<RegisterSessionKey>(m);
    one::<OpenPosition>(m);
    one::<Close>(m);
    one::<WithdrawToCore>(m);
    one::<Stake>(m);
    one::<Unstake>(m);
    one::<Claim>(m);
    one::<CancelIntent>(m);
}

/// SSE-shaped text: field lines, comments and blank lines with every kind of line end.
fn sse_text() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        Just("data: {\"a\":1}".to_string()),
        Just("event: wallet".to_string()),
        Just(": connected".to_string()),
        Just(String::new()),
        Just("id: 7".to_string()),
        Just("retry: 0".to_string()),
        Just("data".to_string()),
        "[a-z:]{0,12}( [ -~]{0,20})?",
        any::<String>(),
    ];
    let end = prop::sample::select(&["\n", "\r", "\r\n"][..]);
    let bytes = prop::collection::vec((line, end), 0..40).prop_map(|lines| {
        lines
            .into_iter()
            .flat_map(|(l, e)| format!("{l}{e}").into_bytes())
            .collect::<Vec<u8>>()
    });
    prop_oneof![3 => bytes, 1 => prop::collection::vec(any::<u8>(), 0..512)]
}

fn parse_chunked(bytes: &[u8], cuts: &[Index]) -> Result<Vec<SseItem>, String> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    let mut parser = SseParser::new();
    let mut items = Vec::new();
    for pair in points.windows(2) {
        items.extend(
            parser
                .feed(&bytes[pair[0]..pair[1]])
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(items)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// However the bytes are cut, the parser yields the same items (or fails the same way),
    /// and no event is larger than the cap.
    #[test]
    fn sse_framing_is_independent_of_chunking(bytes in sse_text(), cuts in prop::collection::vec(any::<Index>(), 0..8)) {
        let whole = parse_chunked(&bytes, &[]);
        let cut = parse_chunked(&bytes, &cuts);
        prop_assert_eq!(&whole, &cut);
        for item in whole.unwrap_or_default() {
            if let SseItem::Event(e) = item {
                prop_assert!(e.data.len() <= SSE_EVENT_CAP);
            }
        }
    }

    #[test]
    fn trading_state(text in hostile(TRADING), bytes in random_text()) {
        let _ = TradingState::decode(&text);
        prop_assert!(TradingState::decode(&bytes).is_err());
    }

    /// Account frames decode, and fold onto a held snapshot, without panicking.
    #[test]
    fn account_frames(snapshot in hostile(SNAPSHOT), patch in hostile(PATCH), bytes in random_text()) {
        prop_assert!(Frame::decode(&bytes).is_err());
        let wallet = WALLET.parse().unwrap();
        for text in [&snapshot, &patch] {
            if let Ok(frame) = Frame::decode(text) {
                let mut fold = AccountFold::new(wallet);
                let _ = fold.fold(&Frame::decode(SNAPSHOT).unwrap());
                let _ = fold.fold(&frame);
                let _ = fold.fold(&frame);
                if let Some(state) = fold.state() {
                    let _ = state.check_consistency();
                    let _ = state.debt_room();
                }
            }
        }
    }

    /// The tuple types on their own, from any JSON at all.
    #[test]
    fn account_tuples(v in arb_json()) {
        let _ = Position::from_wire(&v);
        let _ = Operation::from_wire(&v);
        let _ = ClosedPosition::from_wire(&v);
        let _ = IntentOutcome::from_wire(&v);
        let _ = serde_json::from_value::<Liveness>(v);
    }

    #[test]
    fn protocol_reads(
        summary in hostile(SUMMARY),
        stats in hostile(MARKET_STATS),
        queue in hostile(QUEUE_SUMMARY),
        trades in hostile(TRADES),
        rank in hostile(QUEUE_RANK),
        health in hostile(HEALTH),
        bytes in random_text(),
    ) {
        let _ = serde_json::from_str::<Summary>(&summary).map(|s| s.mint_rate());
        let _ = serde_json::from_str::<MarketStats>(&stats);
        let _ = serde_json::from_str::<QueueSummary>(&queue);
        let _ = serde_json::from_str::<RecentTrades>(&trades);
        let _ = serde_json::from_str::<QueueRank>(&rank);
        let _ = serde_json::from_str::<RelayerHealth>(&health).map(|h| h.is_ready());
        prop_assert!(serde_json::from_str::<Summary>(&bytes).is_err());
        prop_assert!(serde_json::from_str::<QueueRank>(&bytes).is_err());
    }

    #[test]
    fn relayer_answers(status in 0u16..1000, accepted in hostile(ACCEPTED), refused in hostile(REFUSED)) {
        let _ = decode_answer(status, &accepted);
        let _ = decode_answer(status, &refused);
    }

    /// Hyperliquid answers, and the price arithmetic applied to what they carry.
    #[test]
    fn hyperliquid_answers(book in hostile(BOOK), candles in hostile(CANDLES), scale in prop::sample::select(&[1u64, 10, 100, 1000, 100_000][..])) {
        if let Ok(b) = serde_json::from_str::<L2Book>(&book) {
            let _ = b.mid_raw(scale);
            for level in b.levels.0.iter().chain(&b.levels.1) {
                let _ = price_raw_from_text(&level.px, scale);
            }
        }
        if let Ok(Some(cs)) = serde_json::from_str::<Option<Vec<Candle>>>(&candles) {
            for c in cs {
                let _ = price_raw_from_text(&c.o, scale);
            }
        }
    }

    /// `typed-data --message` and the relayer's `signed` objects.
    #[test]
    fn typed_data_messages(
        open in hostile(OPEN_SIGNED),
        register in hostile(REGISTER_MESSAGE),
        random in prop::collection::vec((arb_key(), arb_json()), 0..10),
    ) {
        for text in [&open, &register] {
            if let Some(m) = object(text) {
                every_intent(&m);
            }
        }
        every_intent(&random.into_iter().collect());
    }
}

/// The example config with a line replaced, dropped or added; or random text.
fn config_text() -> impl Strategy<Value = String> {
    let lines: Vec<&'static str> = CONFIG.lines().collect();
    let replacement = prop_oneof![
        Just("[ui.keys]".to_string()),
        Just("max_fps = -1".to_string()),
        Just("markets_ms = 18446744073709551615".to_string()),
        Just("theme = \"\u{1b}[2J\"".to_string()),
        "[a-z_.]{1,12} = [ -~]{0,20}",
        any::<String>(),
    ];
    prop_oneof![
        3 => (any::<Index>(), replacement, 0u8..3).prop_map(move |(i, new, op)| {
            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            let at = i.index(l.len());
            match op {
                0 => l[at] = new,
                1 => drop(l.remove(at)),
                _ => l.insert(at, new),
            }
            l.join("\n")
        }),
        1 => random_text(),
    ]
}

/// A v3 keystore with cheap but otherwise random parameters: it reaches the decryption (a wrong
/// MAC), or fails the format check first.
fn keystore_text() -> impl Strategy<Value = String> {
    let hex = |n: std::ops::Range<usize>| {
        prop::collection::vec(any::<u8>(), n).prop_map(alloy_primitives::hex::encode)
    };
    let kdf = prop_oneof![
        (1u32..=10, 1u64..=4, 1u64..=2, 0u64..=80).prop_map(|(log_n, r, p, dklen)| {
            format!(r#""kdf":"scrypt","kdfparams":{{"dklen":{dklen},"n":{},"r":{r},"p":{p},"salt":"00ff"}}"#, 1u64 << log_n)
        }),
        (0u64..=2000, 0u64..=80).prop_map(|(c, dklen)| {
            format!(r#""kdf":"pbkdf2","kdfparams":{{"dklen":{dklen},"c":{c},"prf":"hmac-sha256","salt":"00ff"}}"#)
        }),
    ];
    let file = (hex(14..18), hex(30..34), hex(30..34), kdf).prop_map(|(iv, ct, mac, kdf)| {
        format!(r#"{{"version":3,"id":"0","crypto":{{"cipher":"aes-128-ctr","cipherparams":{{"iv":"{iv}"}},"ciphertext":"{ct}","mac":"{mac}",{kdf}}}}}"#)
    });
    prop_oneof![3 => file, 1 => random_text()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn config_files(text in config_text()) {
        let _ = toml::from_str::<FileConfig>(&text);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, &text).unwrap();
        let _ = FileConfig::load_from(&path);
    }

    /// No random keystore decrypts, and none panics the decoder on the way.
    #[test]
    fn keystore_files(text in keystore_text()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.json");
        std::fs::write(&path, &text).unwrap();
        prop_assert!(load_owner_keystore(&path, &Passphrase::new("pw".into())).is_err());
    }
}

/// The samples the mutations start from are themselves valid, so a mutation is one fault in an
/// otherwise good input, which reaches deep into the decoders.
#[test]
fn the_samples_decode() {
    TradingState::decode(TRADING).unwrap();
    let mut fold = AccountFold::new(WALLET.parse().unwrap());
    fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
    fold.fold(&Frame::decode(PATCH).unwrap()).unwrap();
    serde_json::from_str::<Summary>(SUMMARY).unwrap();
    serde_json::from_str::<MarketStats>(MARKET_STATS).unwrap();
    serde_json::from_str::<QueueSummary>(QUEUE_SUMMARY).unwrap();
    serde_json::from_str::<RecentTrades>(TRADES).unwrap();
    serde_json::from_str::<QueueRank>(QUEUE_RANK).unwrap();
    assert!(
        serde_json::from_str::<RelayerHealth>(HEALTH)
            .unwrap()
            .is_ready()
    );
    assert!(matches!(
        decode_answer(200, ACCEPTED),
        Ok(papertrade_tui::protocol::relayer::RelayerAnswer::Accepted(
            _
        ))
    ));
    serde_json::from_str::<L2Book>(BOOK)
        .unwrap()
        .mid_raw(10)
        .unwrap();
    serde_json::from_str::<Vec<Candle>>(CANDLES).unwrap();
    Signed::<OpenPosition>::from_wire(&object(OPEN_SIGNED).unwrap()).unwrap();
    RegisterSessionKey::from_message(&object(REGISTER_MESSAGE).unwrap(), Strictness::Lenient)
        .unwrap()
        .rules()
        .unwrap();
    toml::from_str::<FileConfig>(CONFIG).unwrap();
}
