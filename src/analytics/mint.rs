//! The SDK's `papertrade_paper_mint`: PAPER the protocol would mint for a loss basis at the
//! current point of the mint curve, the marginal PAPER per $1, supply and the staked share.
//! The curve is §5.5's (`protocol::math::mint_rate`, fed from the summary's `paper` block, §3.4).

use serde_json::{Value, json};

use crate::protocol::math::mint_amount;
use crate::protocol::pretrade::percent_json;
use crate::protocol::reads::Summary;
use crate::protocol::units::{WAD, signed, wad_json};

use super::raw;

/// The seed's bound on `lossBasisUsd`: $1,000,000,000.
pub const MAX_LOSS_BASIS_USD: u128 = 1_000_000_000;

/// The estimate at one loss basis (wad).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MintEstimate {
    pub loss_basis: u128,
    /// PAPER per $1 of loss basis now (1e18).
    pub rate: u128,
    /// PAPER minted for the basis (18 dp).
    pub minted: u128,
    pub supply: u128,
    pub staked: u128,
    /// Whether the tracked LP is past the cliff, where the rate decays.
    pub decaying: bool,
    pub tracked_lp: i128,
    pub tail_progress: u128,
}

pub fn estimate(summary: &Summary, loss_basis: u128) -> MintEstimate {
    let rate = summary.mint_rate();
    let p = &summary.paper;
    MintEstimate {
        loss_basis,
        rate,
        minted: mint_amount(loss_basis, rate),
        supply: p.supply,
        staked: p.staked,
        decaying: p.tracked_lp >= 0 && p.tracked_lp as u128 >= p.cliff,
        tracked_lp: p.tracked_lp,
        tail_progress: p.tail_progress,
    }
}

impl MintEstimate {
    /// The SDK tool's result (`paperPerUsd`, `estimatedPaper`) and the rest of its description:
    /// supply, staked and the staked share, each with its exact raw integer.
    pub fn json(&self) -> Value {
        let mut v = json!({
            "lossBasisUsd": wad_json(signed(self.loss_basis), 6),
            "lossBasisRaw": raw(self.loss_basis),
            "paperPerUsd": wad_json(signed(self.rate), 6),
            "paperPerUsdRaw": raw(self.rate),
            "estimatedPaper": wad_json(signed(self.minted), 6),
            "estimatedPaperRaw": raw(self.minted),
            "paperSupply": wad_json(signed(self.supply), 2),
            "paperSupplyRaw": raw(self.supply),
            "paperStaked": wad_json(signed(self.staked), 2),
            "paperStakedRaw": raw(self.staked),
            "stakedSharePct": (self.supply > 0).then(|| percent_json(signed(self.staked), self.supply, 2)),
            "stakedShareNote": (self.supply == 0).then_some("no PAPER supply yet: no share to give"),
            "curve": {
                "phase": if self.decaying { "decaying" } else { "flat" },
                "trackedLpRaw": raw(self.tracked_lp),
                "tailProgressRaw": raw(self.tail_progress),
            },
            "note": "the basis is the realised loss less the 2% LP-side fee while the payout queue is empty, the full loss while it is active, the full margin on a liquidation (protocol.md §5.5); the rate moves as the LP's tail grows",
        });
        crate::protocol::units::omit_nulls(&mut v, &["stakedSharePct", "stakedShareNote"]);
        v
    }
}

/// One dollar of loss basis (the seed's default).
pub const ONE_USD: u128 = WAD;
