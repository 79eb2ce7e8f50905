//! The liquidations service's figures (`../shared/seeds/004_…`, plus the risk previews of
//! `003_…`), exact and local: every open position of the scanned wallets valued at its market's
//! mark ([`book`]), bucketed by bust price ([`buckets`]: the bust map, the regrouped protocol
//! map and the clusters), ranked by distance to bust ([`closest`]), one wallet's risk
//! ([`wallet`]), and the share of open interest the scan covers ([`coverage`]).
//!
//! Integers at the contract's scales throughout (raw prices, wad dollars); JSON carries dollar
//! figures as numbers beside their exact raw integers (`…Raw`), as every command does.

pub mod book;
pub mod buckets;
pub mod closest;
pub mod coverage;
pub mod json;
pub mod wallet;

pub use book::{AtRisk, Book, Danger, book};
pub use buckets::{
    Bucket, BustMap, Cascade, Cluster, ClusterSummary, LiquidationMap, bust_map, cascade, clusters,
    covering_bucket, default_bucket, liquidation_map,
};
pub use closest::{ClosestQuery, closest};
pub use coverage::{Coverage, coverage};
pub use wallet::{WalletRisk, wallet_risk};

/// The seeds' argument ranges (`004_…` Parameters table).
pub const MAX_WALLETS: usize = 44;
pub const MAX_CASCADE_PERCENT: u32 = 25;
pub const MAX_BUCKETS: usize = 200;
pub const MAX_CLOSEST: usize = 50;
pub const MAX_CLUSTERS: usize = 10;
/// Defaults where the seed names none: a ladder of 40 buckets is readable at 80x24 with a
/// header, 20 wallets keeps the scan to a few seconds, 10 closest and 3 clusters a side.
pub const DEFAULT_BUCKETS: usize = 40;
pub const DEFAULT_WALLETS: usize = 20;
pub const DEFAULT_CLOSEST: usize = 10;
pub const DEFAULT_CLUSTERS: usize = 3;
