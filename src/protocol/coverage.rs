//! How far back a wallet's local history is complete. Every process that follows the wallet's
//! account stream writes a [`Mark`] into the history file: when it syncs (a `start`: whatever
//! happened since the previous mark was not necessarily seen) and after each close it saw (a
//! continuation: nothing was missed since its own previous mark; also written when a position
//! opens, so a later view knows what was held). Between a mark and the next
//! `start`, no one may have been looking; the exchange's own running sum of the wallet's closes,
//! `lifetime.realizedPnlRaw` (protocol.md §3.2, it "moves by exactly the net PnL"), and the open
//! positions tell whether a close happened there that no record holds. The history is complete
//! from the last such gap on.
//!
//! What cannot be told: closes in a gap whose net PnL sums to exactly zero, of positions opened
//! and closed inside it. Said in the note, never guessed.

use std::collections::BTreeSet;

use alloy_primitives::{B256, U256};
use serde::{Deserialize, Serialize};

use super::account::{AccountState, id_list};
use super::wire::dec;

/// The wallet's account as one process saw it whole at `at_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mark {
    pub at_ms: u64,
    /// `lifetime.realizedPnlRaw` then (signed wad).
    #[serde(with = "dec")]
    pub realized_pnl_raw: i128,
    /// The positions open then.
    #[serde(with = "id_list")]
    pub open: Vec<U256>,
    /// A fresh view (a snapshot): the time since the previous mark was not necessarily watched.
    /// `false`: the same view goes on, having seen every close since its previous mark.
    pub start: bool,
}

impl Mark {
    pub fn of(state: &AccountState, at_ms: u64, start: bool) -> Self {
        Self {
            at_ms,
            realized_pnl_raw: state.lifetime.realized_pnl,
            open: state.open_positions.iter().map(|p| p.id).collect(),
            start,
        }
    }
}

/// Whether the open positions differ between two states of an account: a view marks each such
/// change, so a later view can tell which positions went while nobody watched.
pub fn positions_changed(before: &AccountState, after: &AccountState) -> bool {
    let ids = |s: &AccountState| s.open_positions.iter().map(|p| p.id).collect::<Vec<_>>();
    ids(before) != ids(after)
}

/// A stretch nobody on this machine watched in which closes happened that no record holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    pub from_ms: u64,
    pub to_ms: u64,
    /// Net PnL (signed wad) the exchange booked there beyond the records': the unseen closes'.
    pub unseen_net_pnl: i128,
    /// Positions open before it, gone after it, with no record.
    pub unseen_ids: Vec<U256>,
    /// Of those (and of positions opened and closed inside it), the ones this machine's audit
    /// log says its own close intent closed: which intent, figures still unseen.
    pub closed_here: Vec<(U256, B256)>,
}

/// What the marks say of the history's completeness.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Every close from here on is in the history (`None`: no mark yet, nothing is known).
    pub complete_since_ms: Option<u64>,
    /// The newest mark: checked up to here.
    pub checked_through_ms: Option<u64>,
    /// The newest gaps, oldest first (at most [`GAPS_KEPT`]).
    pub gaps: Vec<Gap>,
    /// The previous mark, to check the next `start` against.
    last: Option<Mark>,
}

/// Gaps remembered (the newest); the completeness needs only the last.
pub const GAPS_KEPT: usize = 16;

/// The one sentence every view of a history says of what "complete" means.
pub const COVERAGE_NOTE: &str = "complete = every close since then is recorded: checked with the exchange's running sum of the wallet's realized PnL and its open positions each time this machine synced the wallet's account stream (closes netting exactly $0, of positions opened and closed while nothing here watched, cannot be told)";

/// What the checks need of the records: the net PnL of a recorded position, and the recorded
/// positions first seen closed in a time range.
pub trait Recorded {
    fn net_pnl_of(&self, id: U256) -> Option<i128>;
    /// `(id, net PnL)` of the records seen closed in `(after_ms, until_ms]`.
    fn seen_between(&self, after_ms: u64, until_ms: u64) -> Vec<(U256, i128)>;
    /// `(id, intent)` of every close only the audit log accounts for.
    fn closed_here(&self) -> Vec<(U256, B256)>;
}

impl Coverage {
    /// Fold the next mark (in the order they were written).
    pub fn observe(&mut self, mark: Mark, records: &impl Recorded) {
        match &self.last {
            None => self.complete_since_ms = Some(mark.at_ms),
            Some(prev) if mark.start => {
                if let Some(gap) = unexplained(prev, &mark, records) {
                    self.complete_since_ms = Some(mark.at_ms);
                    if self.gaps.len() == GAPS_KEPT {
                        self.gaps.remove(0);
                    }
                    self.gaps.push(gap);
                }
            }
            Some(_) => {}
        }
        self.checked_through_ms = Some(
            self.checked_through_ms
                .map_or(mark.at_ms, |t| t.max(mark.at_ms)),
        );
        self.last = Some(mark);
    }
}

impl Coverage {
    /// Since when, in a few words: `complete since 2026-12-02 01:10 UTC`.
    pub fn since_text(&self) -> String {
        match self.complete_since_ms {
            Some(since) => format!(
                "complete since {} UTC",
                crate::clock::utc_minute_text(since)
            ),
            None => "completeness not known yet".into(),
        }
    }

    /// One line for a person: since when the history is complete, and why not before.
    pub fn summary(&self) -> String {
        if self.complete_since_ms.is_none() {
            return "completeness not known: nothing on this machine has followed this \
                    wallet's account yet"
                .into();
        }
        match self.gaps.last() {
            None => format!(
                "{} (since this machine first followed the wallet)",
                self.since_text()
            ),
            Some(g) => format!("{}; before that, {}", self.since_text(), g.describe()),
        }
    }

    /// The machine-readable form (`history --json`, the assistant tool).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "complete_since": self.complete_since_ms,
            "checked_through": self.checked_through_ms,
            "summary": self.summary(),
            "gaps": self.gaps.iter().map(|g| serde_json::json!({
                "from": g.from_ms,
                "to": g.to_ms,
                "unseen_net_pnl_usd": super::units::usd_signed_text(g.unseen_net_pnl),
                "unseen_net_pnl_raw": g.unseen_net_pnl.to_string(),
                "unseen_position_ids": g.unseen_ids.iter().map(U256::to_string).collect::<Vec<_>>(),
                "closed_here": g.closed_here.iter().map(|(id, intent)| serde_json::json!({
                    "position_id": id.to_string(),
                    "intent_id": format!("{intent:#x}"),
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "note": COVERAGE_NOTE,
        })
    }
}

impl Gap {
    /// What was missed, in words.
    pub fn describe(&self) -> String {
        let utc = |ms: u64| crate::clock::utc_minute_text(ms);
        let mut text = format!(
            "closes between {} and {} UTC were not seen",
            utc(self.from_ms),
            utc(self.to_ms)
        );
        let mut what = Vec::new();
        if self.unseen_net_pnl != 0 {
            what.push(format!(
                "{} net booked by the exchange",
                super::units::usd_signed_text(self.unseen_net_pnl)
            ));
        }
        let by_intent = |id: &U256| self.closed_here.iter().find(|(p, _)| p == id);
        let unexplained: Vec<String> = self
            .unseen_ids
            .iter()
            .filter(|id| by_intent(id).is_none())
            .map(|i| format!("#{i}"))
            .collect();
        if !unexplained.is_empty() {
            what.push(format!("position(s) {}", unexplained.join(", ")));
        }
        for (id, intent) in &self.closed_here {
            what.push(format!(
                "#{id} closed by this machine's intent {intent:#x}, its figures unseen"
            ));
        }
        if !what.is_empty() {
            text.push_str(&format!(" ({})", what.join("; ")));
        }
        text
    }
}

/// The gap between `prev` and the fresh view `next`, unless the records explain every close the
/// exchange booked in between.
fn unexplained(prev: &Mark, next: &Mark, records: &impl Recorded) -> Option<Gap> {
    let still_open: BTreeSet<U256> = next.open.iter().copied().collect();
    let before: BTreeSet<U256> = prev.open.iter().copied().collect();
    let mut explained: i128 = 0;
    let mut counted = BTreeSet::new();
    let mut unseen_ids = Vec::new();
    for id in before.difference(&still_open) {
        match records.net_pnl_of(*id) {
            Some(net) => {
                explained = explained.saturating_add(net);
                counted.insert(*id);
            }
            None => unseen_ids.push(*id),
        }
    }
    // Positions opened and closed in between that another process saw (and recorded).
    for (id, net) in records.seen_between(prev.at_ms, next.at_ms) {
        if !before.contains(&id) && !still_open.contains(&id) && counted.insert(id) {
            explained = explained.saturating_add(net);
        }
    }
    let booked = next.realized_pnl_raw.saturating_sub(prev.realized_pnl_raw);
    let unseen_net_pnl = booked.saturating_sub(explained);
    // Which of the positions gone unseen this machine's own close intents closed.
    let closed_here = records
        .closed_here()
        .into_iter()
        .filter(|(id, _)| unseen_ids.contains(id))
        .collect::<Vec<_>>();
    (unseen_net_pnl != 0 || !unseen_ids.is_empty()).then_some(Gap {
        from_ms: prev.at_ms,
        to_ms: next.at_ms,
        unseen_net_pnl,
        unseen_ids,
        closed_here,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// (id → (net, seen at)), and the closes only the audit log accounts for.
    struct Records(BTreeMap<u64, (i128, u64)>, Vec<(U256, B256)>);

    impl Recorded for Records {
        fn net_pnl_of(&self, id: U256) -> Option<i128> {
            self.0.get(&id.to::<u64>()).map(|(n, _)| *n)
        }
        fn seen_between(&self, after_ms: u64, until_ms: u64) -> Vec<(U256, i128)> {
            self.0
                .iter()
                .filter(|(_, (_, at))| *at > after_ms && *at <= until_ms)
                .map(|(id, (n, _))| (U256::from(*id), *n))
                .collect()
        }
        fn closed_here(&self) -> Vec<(U256, B256)> {
            self.1.clone()
        }
    }

    fn mark(at_ms: u64, realized: i128, open: &[u64], start: bool) -> Mark {
        Mark {
            at_ms,
            realized_pnl_raw: realized,
            open: open.iter().map(|i| U256::from(*i)).collect(),
            start,
        }
    }

    fn fold(marks: Vec<Mark>, records: &Records) -> Coverage {
        let mut c = Coverage::default();
        for m in marks {
            c.observe(m, records);
        }
        c
    }

    #[test]
    fn closes_seen_by_some_process_leave_no_gap() {
        // A CLI open at 10 (1 open), its close at 20 seen and recorded (-5), a later command
        // at 30 finds nothing new; another process's close of a position opened and closed
        // between two views (seen at 35) also explains the sum.
        let records = Records(BTreeMap::from([(1, (-5, 20)), (2, (7, 35))]), Vec::new());
        let c = fold(
            vec![
                mark(10, 100, &[1], true),
                mark(20, 95, &[], false),
                mark(30, 95, &[], true),
                mark(40, 102, &[], true),
            ],
            &records,
        );
        assert_eq!(c.complete_since_ms, Some(10));
        assert_eq!(c.checked_through_ms, Some(40));
        assert!(c.gaps.is_empty());
    }

    #[test]
    fn a_close_nobody_here_saw_starts_the_complete_part_after_it() {
        let records = Records(BTreeMap::new(), Vec::new());
        // Position 1 closed (net -3) while no process ran; a position opened and closed then
        // (net +2) moved the sum too.
        let c = fold(
            vec![
                mark(10, 100, &[1], true),
                mark(50, 99, &[], true),
                mark(60, 99, &[], true),
            ],
            &records,
        );
        assert_eq!(c.complete_since_ms, Some(50));
        assert_eq!(
            c.gaps,
            vec![Gap {
                from_ms: 10,
                to_ms: 50,
                unseen_net_pnl: -1,
                unseen_ids: vec![U256::from(1u64)],
                closed_here: Vec::new(),
            }]
        );
        // A position gone with no record is a gap even at a net of zero.
        let c = fold(
            vec![mark(10, 0, &[4], true), mark(20, 0, &[], true)],
            &records,
        );
        assert_eq!(c.complete_since_ms, Some(20));
        // Only the sum moved: a close opened and closed unseen.
        let c = fold(
            vec![mark(10, 0, &[], true), mark(20, 8, &[], true)],
            &records,
        );
        assert_eq!(c.gaps[0].unseen_net_pnl, 8);
        // A continuation is never a gap: its process saw everything since its previous mark.
        let c = fold(
            vec![mark(10, 0, &[4], true), mark(20, -9, &[], false)],
            &records,
        );
        assert_eq!(c.complete_since_ms, Some(10));
    }

    #[test]
    fn a_gap_names_the_intent_this_machine_closed_a_position_with() {
        // Positions 1 and 2 went while nothing watched; this machine's audit log says its own
        // intent closed 1 (learnt later), and also knows a close of 9, which is not in this gap.
        let intent = B256::repeat_byte(0xab);
        let records = Records(
            BTreeMap::new(),
            vec![(U256::from(1u64), intent), (U256::from(9u64), intent)],
        );
        let c = fold(
            vec![mark(10, 100, &[1, 2], true), mark(50, 90, &[], true)],
            &records,
        );
        let gap = &c.gaps[0];
        assert_eq!(gap.closed_here, vec![(U256::from(1u64), intent)]);
        // Still a gap: the figures of the close were never seen, so the history is complete
        // only from the later view on.
        assert_eq!(c.complete_since_ms, Some(50));
        let text = gap.describe();
        assert!(text.contains("position(s) #2;"), "{text}");
        assert!(
            text.contains(&format!(
                "#1 closed by this machine's intent {intent:#x}, its figures unseen"
            )),
            "{text}"
        );
        assert_eq!(
            c.json()["gaps"][0]["closed_here"][0]["intent_id"],
            format!("{intent:#x}")
        );
    }

    #[test]
    fn a_mark_round_trips_as_json() {
        let m = mark(
            1_791_862_800_000,
            -108_141_232_449_579_150,
            &[411_276],
            true,
        );
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(
            text,
            r#"{"atMs":1791862800000,"realizedPnlRaw":"-108141232449579150","open":["411276"],"start":true}"#
        );
        assert_eq!(serde_json::from_str::<Mark>(&text).unwrap(), m);
    }
}
