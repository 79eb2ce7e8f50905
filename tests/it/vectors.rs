//! Every vector in `../shared/vectors/` (copied verbatim into `tests/vectors/`): signing cases
//! byte for byte, recorded bust prices, the recorded close and the mint rate.

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_sol_types::{Eip712Domain, SolStruct};
use papertrade_tui::protocol::eip712::{
    CancelIntent, Claim, Close, Distribute, Domain, INTENT_ID_TAG, Intent, OpenPosition,
    RegisterSessionKey, SessionIntent, SessionSigner, Signed, Stake, Strictness, Unstake,
    WalletIntent, WalletSigner, WithdrawToCore, intent_id, typed_data_json,
};
use papertrade_tui::protocol::math::{
    LOSS_FEE_RATE, MINT_CLIFF, MINT_DECAY, MINT_RATE, bust_price, mint_rate, value_close,
};
use papertrade_tui::protocol::trading::TradingState;
use serde_json::{Value, json};

const VECTORS: &str = include_str!("../vectors/signing-and-math.json");

fn vectors() -> Value {
    serde_json::from_str(VECTORS).unwrap()
}

fn b256(v: &Value) -> B256 {
    v.as_str().unwrap().parse().unwrap()
}

fn key(v: &Value, who: &str) -> B256 {
    b256(&v["keys"][who]["key"])
}

/// Where the shared reference sits beside the checkout, the copy must be its exact twin; a
/// reference folder without the vectors file is an error, not a pass. A checkout without the
/// reference at all says so on stderr (the copy is still what every other test here checks).
#[test]
fn the_copy_matches_the_shared_vectors_when_present() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if !shared.is_dir() {
        eprintln!("note: ../shared is not beside this checkout; the copy was not compared");
        return;
    }
    let text = std::fs::read_to_string(shared.join("vectors/signing-and-math.json"))
        .expect("../shared exists, so ../shared/vectors/signing-and-math.json must too");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        vectors(),
        "tests/vectors is stale"
    );
}

#[test]
fn keys_domains_and_tag() {
    let v = vectors();
    let wallet = WalletSigner::from_bytes(&key(&v, "wallet")).unwrap();
    let session = SessionSigner::from_bytes(&key(&v, "session")).unwrap();
    assert_eq!(
        format!("{:#x}", wallet.address()),
        v["keys"]["wallet"]["address"]
    );
    assert_eq!(
        format!("{:#x}", session.address()),
        v["keys"]["session"]["address"]
    );
    for (name, domain) in [
        ("exchange", Domain::Exchange),
        ("paperStaking", Domain::PaperStaking),
        ("cancellation", Domain::Cancellation),
    ] {
        let d = &v["domains"][name];
        assert_eq!(d["name"], domain.name());
        assert_eq!(d["version"], domain.version());
        assert_eq!(d["chainId"], 999);
        assert_eq!(
            format!("{:#x}", domain.verifying_contract()),
            d["verifyingContract"]
        );
        assert_eq!(domain.eip712().separator(), b256(&d["separator"]), "{name}");
    }
    assert_eq!(INTENT_ID_TAG, b256(&v["intentIdTag"]));
    assert_eq!(keccak256("papertrade:intent-id:v2"), INTENT_ID_TAG);
}

/// Check one case against its vector: type string and hash, struct hash, digest, r/s/v,
/// intent id, exact POST path and body, and that the body reads back to the same intent.
fn check_case<I: Intent>(case: &Value, signed: Signed<I>) {
    let name = case["name"].as_str().unwrap();
    let intent = signed.intent();
    assert_eq!(
        I::eip712_encode_type(),
        case["typeString"].as_str().unwrap(),
        "{name}"
    );
    assert_eq!(intent.eip712_type_hash(), b256(&case["typeHash"]), "{name}");
    assert_eq!(
        intent.eip712_hash_struct(),
        b256(&case["structHash"]),
        "{name}"
    );
    assert_eq!(signed.digest(), b256(&case["digest"]), "{name}");
    let signed_json = signed.signed_json();
    assert_eq!(signed_json["r"], case["r"], "{name} r");
    assert_eq!(signed_json["s"], case["s"], "{name} s");
    assert_eq!(
        u64::from(signed.v()),
        case["v"].as_u64().unwrap(),
        "{name} v"
    );
    assert_eq!(signed.intent_id(), b256(&case["intentId"]), "{name}");
    let types: Vec<Value> = typed_data_json(intent)["types"][I::NAME]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(Value::Array(types), case["types"], "{name} types");
    match (signed.post(), case["post"]["path"].as_str()) {
        (Some(post), Some(path)) => {
            assert_eq!(post.path, path, "{name}");
            // Byte-exact: same keys, same order, same value forms.
            let expected = serde_json::to_string(&case["post"]["body"]).unwrap();
            assert_eq!(post.body_text(), expected, "{name}");
            let back = Signed::<I>::from_wire(post.body["signed"].as_object().unwrap()).unwrap();
            assert_eq!(back.intent_id(), signed.intent_id(), "{name} round trip");
        }
        (None, None) => {}
        (got, want) => panic!("{name}: post {got:?} vs vector {want:?}"),
    }
}

fn session_case<I: SessionIntent>(v: &Value, case: &Value) {
    let intent = I::from_message(case["message"].as_object().unwrap(), Strictness::Wire).unwrap();
    let signer = SessionSigner::from_bytes(&key(v, "session")).unwrap();
    check_case(case, signer.sign(intent).unwrap());
}

fn wallet_case<I: WalletIntent>(v: &Value, case: &Value) {
    let intent = I::from_message(case["message"].as_object().unwrap(), Strictness::Wire).unwrap();
    let signer = WalletSigner::from_bytes(&key(v, "wallet")).unwrap();
    check_case(case, signer.sign(intent).unwrap());
}

#[test]
fn every_signing_case_byte_for_byte() {
    let v = vectors();
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let signer = case["signer"].as_str().unwrap();
        match (case["primaryType"].as_str().unwrap(), signer) {
            ("RegisterSessionKey", "wallet") => wallet_case::<RegisterSessionKey>(&v, case),
            ("WithdrawToCore", "wallet") => wallet_case::<WithdrawToCore>(&v, case),
            ("Stake", "wallet") => wallet_case::<Stake>(&v, case),
            ("Unstake", "wallet") => wallet_case::<Unstake>(&v, case),
            ("Claim", "wallet") => wallet_case::<Claim>(&v, case),
            ("Distribute", "wallet") => wallet_case::<Distribute>(&v, case),
            ("OpenPosition", "session") => session_case::<OpenPosition>(&v, case),
            ("Close", "session") => session_case::<Close>(&v, case),
            ("CancelIntent", "session") => session_case::<CancelIntent>(&v, case),
            (other, who) => panic!("vector case {other} signed by {who} has no test"),
        }
    }
}

#[test]
fn cancel_of_the_btc_open_matches_the_protocol_table() {
    // protocol.md §4.6: CancelIntent of 0xc2bc…b959, digest 0x8b2c…769a, v 28, id 0xd1a4…83e2.
    let v = vectors();
    let session = SessionSigner::from_bytes(&key(&v, "session")).unwrap();
    let cancel = CancelIntent {
        user: "0x14791697260e4c9a71f18484c9f997b308e59325"
            .parse()
            .unwrap(),
        intentId: "0xc2bc1984b6b08b26186b7579d4a279f24937865b82683d9ed4199f40012cb959"
            .parse()
            .unwrap(),
        deadline: U256::from(1_791_864_000u64),
    };
    let signed = session.sign(cancel).unwrap();
    assert_eq!(
        signed.digest(),
        "0x8b2cfbd572367973698e0784f5a0226a2dea4609893be3e55b0e5fb9101d769a"
            .parse::<B256>()
            .unwrap()
    );
    assert_eq!(signed.v(), 28);
    assert_eq!(
        signed.intent_id(),
        "0xd1a4b4af898ab0de405685c144cebb38e4503d4f5266b5dc7ca970dc9a2f83e2"
            .parse::<B256>()
            .unwrap()
    );
    let post = signed.post().unwrap();
    assert_eq!(
        post.path,
        "/intents/0xc2bc1984b6b08b26186b7579d4a279f24937865b82683d9ed4199f40012cb959/cancel"
    );
    let body = post.body.as_object().unwrap();
    let keys: Vec<&str> = body.keys().map(String::as_str).collect();
    assert_eq!(keys, ["user", "deadline", "v", "r", "s"]);
    assert_eq!(body["deadline"], "1791864000");
    assert_eq!(body["v"], "28");
    // The relayer side: path id + body recover the same signer and id.
    let mut with_id = body.clone();
    with_id.insert(
        "intentId".into(),
        json!("0xc2bc1984b6b08b26186b7579d4a279f24937865b82683d9ed4199f40012cb959"),
    );
    let back = Signed::<CancelIntent>::from_wire(&with_id).unwrap();
    assert_eq!(back.signer(), session.address());
    assert_eq!(back.intent_id(), signed.intent_id());
}

#[test]
fn the_same_digest_signed_by_another_key_is_another_intent() {
    let v = vectors();
    let case = &v["cases"][1];
    let digest = b256(&case["digest"]);
    let session: Address = v["keys"]["session"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let wallet: Address = v["keys"]["wallet"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(intent_id(digest, session), b256(&case["intentId"]));
    assert_ne!(intent_id(digest, wallet), b256(&case["intentId"]));
}

#[test]
fn rejected_domains_give_the_recorded_wrong_digests() {
    let v = vectors();
    let open_case = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["primaryType"] == "OpenPosition")
        .unwrap();
    let open =
        OpenPosition::from_message(open_case["message"].as_object().unwrap(), Strictness::Wire)
            .unwrap();
    for rejected in v["rejected"].as_array().unwrap() {
        let d = &rejected["domain"];
        let domain = Eip712Domain::new(
            Some(d["name"].as_str().unwrap().to_string().into()),
            Some(d["version"].as_str().unwrap().to_string().into()),
            Some(U256::from(d["chainId"].as_u64().unwrap())),
            Some(d["verifyingContract"].as_str().unwrap().parse().unwrap()),
            None,
        );
        assert_eq!(domain.separator(), b256(&rejected["separator"]));
        let digest = open.eip712_signing_hash(&domain);
        assert_eq!(digest, b256(&rejected["digest"]));
        assert_ne!(digest, b256(&open_case["digest"]), "{}", rejected["why"]);
    }
}

#[test]
fn wallet_typed_data_uses_numbers_for_small_uints() {
    let v = vectors();
    let case = &v["cases"][0];
    let intent =
        RegisterSessionKey::from_message(case["message"].as_object().unwrap(), Strictness::Wire)
            .unwrap();
    let typed = typed_data_json(&intent);
    assert_eq!(
        serde_json::to_string(&typed["message"]).unwrap(),
        r#"{"user":"0x14791697260e4c9a71f18484c9f997b308e59325","key":"0x2c7536e3605d9c16a7a3d7b1898e529396a65c23","expiry":1794452400,"feeAddress":"0x0000000000000000000000000000000000000000","nonce":"3170816","deadline":1791864000}"#
    );
    assert_eq!(typed["domain"]["chainId"], 999);
    assert_eq!(typed["primaryType"], "RegisterSessionKey");
    let keys: Vec<&String> = typed.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["domain", "message", "primaryType", "types"]);
}

fn instruments() -> TradingState {
    let v = vectors();
    let mut state: Value =
        serde_json::from_str(include_str!("../../assets/trading_mainnet.json")).unwrap();
    // The vectors' instrument tuples are external truth; run the math on them, not our asset.
    state["instruments"] = v["math"]["instruments"].clone();
    state["winFeeRateRaw"] = v["math"]["winFeeRateRaw"].clone();
    TradingState::from_value(&state).unwrap()
}

#[test]
fn every_recorded_bust_price() {
    let v = vectors();
    let state = instruments();
    let rows: Vec<&Value> = v["math"]["bust"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["math"]["bustExtra"].as_array().unwrap())
        .collect();
    assert!(rows.len() >= 27);
    for row in rows {
        let market = state
            .market_by_id(row["instrumentId"].as_u64().unwrap() as u32)
            .unwrap();
        let entry: u64 = row["entryRaw"].as_str().unwrap().parse().unwrap();
        let leverage = row["leverage"].as_u64().unwrap() as u32;
        let is_long = row["isLong"].as_bool().unwrap();
        let expected: u64 = row["bustRaw"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            bust_price(entry, leverage, is_long, market.bust_buffer),
            expected,
            "{row}"
        );
    }
}

#[test]
fn the_recorded_close_to_the_raw_unit() {
    let v = vectors();
    let state = instruments();
    for row in v["math"]["closes"].as_array().unwrap() {
        let market = state
            .market_by_id(row["instrumentId"].as_u64().unwrap() as u32)
            .unwrap();
        let n = |k: &str| row[k].as_str().unwrap();
        let valuation = value_close(
            market,
            state.win_fee_rate(),
            n("entryRaw").parse().unwrap(),
            n("marginRaw").parse().unwrap(),
            row["leverage"].as_u64().unwrap() as u32,
            row["isLong"].as_bool().unwrap(),
            n("exitRaw").parse().unwrap(),
        );
        assert_eq!(valuation.raw_pnl.to_string(), n("rawPnlRaw"));
        assert_eq!(valuation.adjusted_pnl.to_string(), n("adjustedPnlRaw"));
        assert_eq!(valuation.net_pnl.to_string(), n("netPnlRaw"));
    }
}

#[test]
fn the_recorded_mint_rate() {
    let v = vectors();
    let m = &v["math"]["mintRate"];
    let n = |k: &str| m[k].as_str().unwrap().parse::<u128>().unwrap();
    let rate = mint_rate(
        n("rate"),
        n("cliff"),
        n("decay"),
        n("trackedLp") as i128,
        n("tailProgress"),
    );
    assert_eq!(rate, n("expectedRate"));
}

/// The curve the simulator mints on is the recorded one, and its loss fee is the 2% the chain
/// reads for every fee rate (§5.5; the vectors record the win fee rate).
#[test]
fn the_protocol_mint_curve_and_loss_fee_are_the_recorded_ones() {
    let v = vectors();
    let m = &v["math"]["mintRate"];
    let n = |k: &str| m[k].as_str().unwrap().parse::<u128>().unwrap();
    assert_eq!(
        (MINT_RATE, MINT_CLIFF, MINT_DECAY),
        (n("rate"), n("cliff"), n("decay"))
    );
    let win_fee: u128 = v["math"]["winFeeRateRaw"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(LOSS_FEE_RATE, win_fee);
}
