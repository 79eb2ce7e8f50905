//! The account stream `/state/user/live` (§3.2): what the exchange sends ([`wire`]: snapshot and
//! patch frames and their tuples) and the fold that applies them under the SDK's rules and
//! consistency checks ([`fold`]). Both are re-exported here, so `protocol::account::X` names
//! either.

pub mod fold;
pub mod wire;

pub use fold::*;
pub use wire::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::parse_address;
    use alloy_primitives::Address;

    const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,
 "indexedThroughTimestamp":1791862827,
 "sessionKeys":[["0x3f531f402502754977d21725fa31bfaacbed3562","1794285240"]],
 "walletRevision":48399562,"queueRevision":"881",
 "balance":"234249163328500998503","queued":"0","locked":"20000000000000000000",
 "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"},
 "queueNodeCount":0,"consumableDebt":"0",
 "paper":{"balance":"307408189127066828","staked":"2148971300842266809833","pendingBase":"539307779344086270","rewardDebt":"22582801164825882659"},
 "lifetime":{"depositedRaw":"209440065000000000000","withdrawnRaw":"0","realizedPnlRaw":"44809098328500998503",
             "feesPaidRaw":"2496246575165132132","tradedNotionalRaw":"275000000000000000000000","paperRewardsClaimedRaw":"0"},
 "openPositions":[["411277",0,false,false,"832045","10000000000000000000",100,"839965",1791862800000,null],
                  ["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,
                   "0xa2e19a7fd16ba48958d0663302f2cf9071c8ba4b75a7686931f905f04f51b2d5"]],
 "operations":[["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","closePositions",null,null,null,null,null,1791862851323,"1791862941",["411276"]]],"accountRevision":2}"#;

    const PATCH: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","accountRevision":3,"baseAccountRevision":2,
 "state":{"indexedThroughBlock":48399623,"indexedThroughTimestamp":1791862860,"walletRevision":48399623,"queueRevision":"883",
          "balance":"244141022096051419353","locked":"10000000000000000000",
          "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"244141022096051419353","availableQueued":"0"},
          "paper":{"balance":"3073772114461888177","staked":"2148971300842266809833","pendingBase":"539307779344086270","rewardDebt":"22582801164825882659"}},
 "lifetime":{"depositedRaw":"209440065000000000000","withdrawnRaw":"0","realizedPnlRaw":"44700957096051419353","feesPaidRaw":"2496246575165132132","tradedNotionalRaw":"275000000000000000000000","paperRewardsClaimedRaw":"0"},
 "addedPositions":[],"removedPositionIds":["411276"],
 "closedPositions":[["411276",0,true,"10000000000000000000",100,false,"-108141232449579150","2766363925334821349"]],
 "addedOperations":[],"removedOperationIds":["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2"],
 "intentOutcomes":[["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","succeeded"]]}"#;

    fn wallet() -> Address {
        parse_address("0xa9f28db0543b215eb2705740f10258c3d000cefd").unwrap()
    }

    #[test]
    fn folds_the_recorded_close() {
        let mut fold = AccountFold::new(wallet());
        assert_eq!(
            fold.fold(&Frame::decode(SNAPSHOT).unwrap()),
            Ok(Folded::Snapshot)
        );
        let folded = fold.fold(&Frame::decode(PATCH).unwrap()).unwrap();
        let Folded::Patched { closed, outcomes } = folded else {
            panic!("patched")
        };
        assert_eq!(closed[0].net_pnl, -108_141_232_449_579_150);
        assert_eq!(outcomes[0].outcome, Outcome::Succeeded);
        let state = fold.state().unwrap();
        assert_eq!(state.open_positions.len(), 1);
        assert!(state.operations.is_empty());
        assert_eq!(state.account_revision, 3);
        // The balance rose by exactly margin + net PnL (§5.3 cross-check).
        assert_eq!(
            state.balance as i128 - 234_249_163_328_500_998_503,
            10_000_000_000_000_000_000 + closed[0].net_pnl
        );
    }

    /// A key is active until its expiry by the exchange's clock (the indexed time), not this
    /// machine's: the same snapshot read a day later is still the exchange's word.
    #[test]
    fn a_session_key_is_active_by_the_exchanges_clock() {
        let mut fold = AccountFold::new(wallet());
        fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
        let mut state = fold.state().unwrap().clone();
        assert_eq!(state.active_session_keys().count(), 1);
        state.indexed_through_timestamp = 1_794_285_240;
        assert_eq!(
            state.active_session_keys().count(),
            0,
            "expired at its expiry"
        );
        state.indexed_through_timestamp = 1_794_285_239;
        assert_eq!(state.active_session_keys().count(), 1);
    }

    #[test]
    fn frames_round_trip_through_the_wire_form() {
        for text in [SNAPSHOT, PATCH] {
            let frame = Frame::decode(text).unwrap();
            assert_eq!(Frame::decode(&frame.to_json()).unwrap(), frame);
        }
    }

    #[test]
    fn replayed_or_gapped_patches_are_refused_and_change_nothing() {
        let mut fold = AccountFold::new(wallet());
        fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
        let patch = Frame::decode(PATCH).unwrap();
        fold.fold(&patch).unwrap();
        let held = fold.state().unwrap().clone();
        assert!(matches!(
            fold.fold(&patch),
            Err(SyncError::Gap { base: 2, held: 3 })
        ));
        assert_eq!(fold.state().unwrap(), &held);
        // An older snapshot is stale, not an error.
        assert_eq!(
            fold.fold(&Frame::decode(SNAPSHOT).unwrap()),
            Ok(Folded::StaleSnapshot)
        );
    }

    #[test]
    fn inconsistent_frames_are_refused() {
        let mut fold = AccountFold::new(wallet());
        let bad_locked =
            SNAPSHOT.replace("\"locked\":\"20000000000000000000\"", "\"locked\":\"1\"");
        assert!(matches!(
            fold.fold(&Frame::decode(&bad_locked).unwrap()),
            Err(SyncError::Inconsistent(_))
        ));
        let unsorted = SNAPSHOT.replace("\"411277\"", "\"411270\"");
        assert!(matches!(
            fold.fold(&Frame::decode(&unsorted).unwrap()),
            Err(SyncError::Inconsistent(_))
        ));
        let foreign = SNAPSHOT.replace(
            "0xa9f28db0543b215eb2705740f10258c3d000cefd",
            "0x14791697260e4c9a71f18484c9f997b308e59325",
        );
        assert!(matches!(
            fold.fold(&Frame::decode(&foreign).unwrap()),
            Err(SyncError::ForeignAddress { .. })
        ));
        assert!(matches!(
            fold.fold(&Frame::decode(PATCH).unwrap()),
            Err(SyncError::NoSnapshot)
        ));
        fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
        let unknown_removal = PATCH.replace(
            "\"removedPositionIds\":[\"411276\"]",
            "\"removedPositionIds\":[\"1\"]",
        );
        assert!(matches!(
            fold.fold(&Frame::decode(&unknown_removal).unwrap()),
            Err(SyncError::OutOfSync(_))
        ));
    }

    #[test]
    fn malformed_frames_are_errors_not_panics() {
        for bad in [
            "",
            "{}",
            "[]",
            "null",
            "{\"baseAccountRevision\":1}",
            &SNAPSHOT.replace("\"881\"", "\"x\""),
        ] {
            assert!(Frame::decode(bad).is_err(), "{bad}");
        }
    }
}
