//! The exchange's read endpoints, answered from the engine in the real shapes and units.

use alloy_primitives::Address;
use serde::Serialize;

use crate::protocol::math::{MINT_CLIFF, MINT_DECAY, MINT_RATE, tail_progress};
use crate::protocol::reads::{
    MarketStat, MarketStats, QueueRank, QueueRankEntry, QueueSource, QueueSummary, RecentTrades,
    Summary, SummaryActivity, SummaryBalances, SummaryFees, SummaryPaper, SummarySource,
};
use crate::protocol::units::{WAD, u256_to_u128, wad_to_f64};
use crate::protocol::wire::{dec, hex};

use super::engine::{Engine, GENESIS_MS, HistoryPoint, Notice};
use super::intake::Refusal;

const DAY_MS: u64 = 86_400_000;

impl Engine {
    pub(crate) fn summary(&self) -> Summary {
        let margin: u128 = self.accounts.values().map(|a| a.state.locked).sum();
        let open = self
            .accounts
            .values()
            .map(|a| a.state.open_positions.len() as u64)
            .sum();
        Summary {
            ok: true,
            source: SummarySource {
                block: self.block(),
                at: self.now_ms(),
                genesis: GENESIS_MS,
            },
            balances: SummaryBalances {
                tvl: self.tvl(),
                margin,
                lp: self.pool.lp,
                reserve: 0,
                queue: self.pool.payout_queue.iter().map(|(_, a)| a).sum(),
            },
            activity: SummaryActivity {
                volume: self.pool.volume,
                open,
            },
            fees: SummaryFees {
                pending: self.pool.fees_pending,
                lifetime: self.pool.fees_lifetime,
            },
            paper: SummaryPaper {
                supply: self.pool.paper_supply,
                staked: self.pool.paper_staked,
                tracked_lp: self.pool.lp,
                accumulator: u256_to_u128(self.pool.acc_reward_per_share),
                tail_progress: tail_progress(self.pool.lp_high_water),
                reserve: 0,
                unallocated: 0,
                pending_rewards: self.pool.fees_pending,
                cliff: MINT_CLIFF,
                cap: 5_000_000 * WAD,
                excess: 0,
                rate: MINT_RATE,
                decay: MINT_DECAY,
            },
        }
    }

    pub(crate) fn market_stats(&self) -> MarketStats {
        let since = self.now_ms().saturating_sub(DAY_MS);
        let markets = self
            .trading
            .instruments
            .iter()
            .map(|m| {
                let volume = self
                    .pool
                    .volume_by_market
                    .get(&m.id)
                    .map(|v| v.iter().filter(|(t, _)| *t >= since).map(|(_, n)| n).sum())
                    .unwrap_or(0);
                (m.id.to_string(), MarketStat { volume_24h: volume })
            })
            .collect();
        MarketStats { ok: true, markets }
    }

    pub(crate) fn queue_summary(&self) -> QueueSummary {
        // The entry shape is unknown on the real exchange (§10.6); the protocol keeps it raw.
        let entry = |&(wallet, amount): &(Address, u128)| {
            serde_json::to_value(QueueEntry { wallet, amount }).expect("serializes")
        };
        let largest = self
            .pool
            .payout_queue
            .iter()
            .max_by_key(|(_, a)| *a)
            .map(entry);
        let front = self.pool.payout_queue.front().map(entry);
        QueueSummary {
            ok: true,
            source: QueueSource {
                block: self.block(),
                at: self.now_ms(),
            },
            total: self.pool.payout_queue.iter().map(|(_, a)| a).sum(),
            count: self.pool.payout_queue.len() as u64,
            largest,
            front,
        }
    }

    pub(crate) fn recent_trades(&self) -> RecentTrades {
        RecentTrades {
            ok: true,
            count: self.trades_feed.len() as u64,
            events: self.trades_feed.iter().cloned().collect(),
        }
    }

    pub(crate) fn queue_rank(&self, wallet: Address) -> QueueRank {
        QueueRank {
            ok: true,
            queue_revision: self.queue_revision,
            entries: self
                .queue
                .iter()
                .enumerate()
                .filter(|(_, q)| q.wallet == wallet)
                .map(|(i, q)| QueueRankEntry {
                    intent_id: q.id,
                    position: i as u64 + 1,
                })
                .collect(),
        }
    }

    pub(crate) fn relayer_health(&self) -> Health {
        let accepted: Vec<&str> = [
            "openPosition",
            "closePositions",
            "withdrawToCore",
            "registerSessionKey",
            "paperStake",
            "paperUnstake",
            "paperClaim",
        ]
        .into_iter()
        .filter(|a| !self.intake_all_paused && self.trading.action_accepted(a))
        .collect();
        Health {
            ok: true,
            ready: !self.intake_all_paused,
            queue_depth: self.queue.len(),
            trading_paused: self.trading.trading_paused,
            accepted_actions: accepted,
            notices: self.notices.clone(),
            simulated: true,
        }
    }

    /// `/query/protocol/history?interval=1m|1h|1d`.
    pub(crate) fn history(&self, interval: &str) -> Result<History, Refusal> {
        let (width, span) = match interval {
            "1m" => (60_000, DAY_MS),
            "1h" => (3_600_000, 7 * DAY_MS),
            "1d" => (DAY_MS, u64::MAX),
            // INVENTED code.
            _ => {
                return Err(Refusal::new(
                    400,
                    "invalid_interval",
                    "interval must be 1m, 1h or 1d",
                ));
            }
        };
        let since = self.now_ms().saturating_sub(span);
        let mut buckets: Vec<HistoryPoint> = Vec::new();
        for p in self.history.iter().filter(|p| p.t >= since) {
            let t = p.t / width * width;
            match buckets.last_mut() {
                // Each point holds the value at the interval's close: the latest sample wins.
                Some(last) if last.t == t => *last = HistoryPoint { t, ..*p },
                _ => buckets.push(HistoryPoint { t, ..*p }),
            }
        }
        let col =
            |f: &dyn Fn(&HistoryPoint) -> f64| -> Vec<f64> { buckets.iter().map(f).collect() };
        let usd = |v: u128| wad_to_f64(v as i128, 2);
        let last = self.history.last().copied().unwrap_or_default();
        let day_ago = self
            .history
            .iter()
            .find(|p| p.t >= self.now_ms().saturating_sub(DAY_MS))
            .copied()
            .unwrap_or_default();
        Ok(History {
            start_ms: buckets
                .first()
                .map_or(self.now_ms() / width * width, |b| b.t),
            interval_ms: width,
            columns: HistoryColumns {
                tvl: col(&|p| usd(p.tvl)),
                staking_rewards: col(&|p| usd(p.staking_rewards)),
                volume: col(&|p| usd(p.volume)),
                volume_btc: col(&|p| usd(p.volume_btc)),
                volume_eth: col(&|p| usd(p.volume_eth)),
                trader_pnl: col(&|p| wad_to_f64(p.trader_pnl, 2)),
                users: col(&|p| p.users as f64),
                liquidation: col(&|p| usd(p.liquidation)),
                trades: col(&|p| p.trades as f64),
                paper_supply: col(&|p| usd(p.paper_supply)),
                paper_staked: col(&|p| usd(p.paper_staked)),
                paper_revenue: col(&|p| usd(p.paper_revenue)),
            },
            source: HistorySource {
                as_of_ms: self.now_ms(),
                revision: self.history.len(),
                generation: 1,
            },
            totals: HistoryTotals {
                tvl_raw: last.tvl,
                rewards_raw: last.staking_rewards,
                volume_raw: last.volume,
                liquidation_raw: last.liquidation,
                trades_raw: last.trades,
                users_raw: last.users,
                staker_fees_24h_raw: last.staking_rewards.saturating_sub(day_ago.staking_rewards),
            },
        })
    }

    /// `/state/leaderboard/accounts`: paged, sorted, windowed.
    pub(crate) fn leaderboard(
        &self,
        page: usize,
        page_size: usize,
        descending: bool,
        sort_key: &str,
        window: &str,
    ) -> Result<Leaderboard, Refusal> {
        let span = match window {
            "24h" => DAY_MS,
            "7d" => 7 * DAY_MS,
            "30d" => 30 * DAY_MS,
            "all" => u64::MAX,
            // INVENTED code.
            _ => {
                return Err(Refusal::new(
                    400,
                    "invalid_window",
                    "window must be 24h, 7d, 30d or all",
                ));
            }
        };
        const KEYS: [&str; 9] = crate::protocol::leaderboard::SortKey::NAMES;
        if !KEYS.contains(&sort_key) {
            return Err(Refusal::new(
                400,
                "invalid_sort_key",
                format!("sortKey must be one of {}", KEYS.join(", ")),
            ));
        }
        if page_size == 0 || page_size > 200 {
            return Err(Refusal::new(
                400,
                "invalid_page_size",
                "pageSize must be 1 to 200",
            ));
        }
        let since = self.now_ms().saturating_sub(span);
        let mut rows: Vec<(Address, [i128; 9], Option<String>)> = self
            .accounts
            .iter()
            .filter(|(_, a)| a.state.lifetime.deposited > 0)
            .map(|(addr, a)| {
                let s = &a.state;
                let realized: i128 = a
                    .realized
                    .iter()
                    .filter(|(t, _)| *t >= since)
                    .map(|(_, p)| p)
                    .sum();
                let unrealized: i128 = s
                    .open_positions
                    .iter()
                    .filter_map(|p| {
                        let market = self.trading.market_by_id(p.instrument_id)?;
                        let mark = self.mark(p.instrument_id)?;
                        Some(
                            crate::protocol::math::value_close(
                                market,
                                self.trading.win_fee_rate(),
                                p.entry_price,
                                p.margin,
                                p.leverage,
                                p.is_long,
                                mark,
                            )
                            .net_pnl,
                        )
                    })
                    .sum();
                let volume: u128 = a
                    .volume
                    .iter()
                    .filter(|(t, _)| *t >= since)
                    .map(|(_, v)| v)
                    .sum();
                let notional: u128 = s.open_positions.iter().map(|p| p.notional()).sum();
                let values = [
                    realized + unrealized,
                    realized,
                    unrealized,
                    s.balance as i128,
                    s.queued as i128,
                    notional as i128,
                    volume as i128,
                    (s.paper.balance + s.paper.staked) as i128,
                    s.open_positions.len() as i128,
                ];
                (*addr, values, a.name.clone())
            })
            .collect();
        let k = KEYS.iter().position(|x| *x == sort_key).expect("checked");
        rows.sort_by(|a, b| {
            let ord = a.1[k].cmp(&b.1[k]).then(a.0.cmp(&b.0));
            if descending { ord.reverse() } else { ord }
        });
        let total = rows.len();
        let Some(skip) = page.checked_mul(page_size) else {
            return Err(Refusal::new(
                400,
                "invalid_parameter",
                "page is out of range",
            ));
        };
        let accounts = rows
            .iter()
            .skip(skip)
            .take(page_size)
            .enumerate()
            .map(|(i, (addr, v, name))| LeaderRow {
                rank: skip + i + 1,
                address: *addr,
                leaderboard_name: name.clone(),
                total_windowed_pnl: v[0],
                realized_pnl: v[1],
                current_unrealized_pnl: v[2],
                current_balance: v[3],
                current_queued: v[4],
                current_open_notional: v[5],
                total_volume: v[6],
                paper_total: v[7],
                current_open_position_count: v[8] as u64,
            })
            .collect();
        Ok(Leaderboard {
            ok: true,
            summary: LeaderSummary {
                unique_accounts: total,
                tracked_balance: self.accounts.values().map(|a| a.state.balance).sum(),
            },
            accounts,
            page_info: PageInfo {
                page,
                page_size,
                total_pages: total.div_ceil(page_size),
                total_items: total,
            },
        })
    }
}

/// `/relayer/health` as the simulator answers it (the client keeps all but `ok` and `ready`
/// raw).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Health {
    ok: bool,
    ready: bool,
    queue_depth: usize,
    trading_paused: bool,
    accepted_actions: Vec<&'static str>,
    notices: Vec<Notice>,
    simulated: bool,
}

/// A payout-queue entry in `/query/protocol/queue-summary`.
#[derive(Serialize)]
struct QueueEntry {
    #[serde(with = "hex")]
    wallet: Address,
    #[serde(with = "dec")]
    amount: u128,
}

/// `/query/protocol/history`: one column per series, dollars rounded to cents.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    start_ms: u64,
    interval_ms: u64,
    columns: HistoryColumns,
    source: HistorySource,
    totals: HistoryTotals,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HistoryColumns {
    tvl: Vec<f64>,
    staking_rewards: Vec<f64>,
    volume: Vec<f64>,
    volume_btc: Vec<f64>,
    volume_eth: Vec<f64>,
    trader_pnl: Vec<f64>,
    users: Vec<f64>,
    liquidation: Vec<f64>,
    trades: Vec<f64>,
    paper_supply: Vec<f64>,
    paper_staked: Vec<f64>,
    paper_revenue: Vec<f64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HistorySource {
    as_of_ms: u64,
    revision: usize,
    generation: u64,
}

/// The latest sample in raw units (wads as decimal strings; users a number).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HistoryTotals {
    #[serde(with = "dec")]
    tvl_raw: u128,
    #[serde(with = "dec")]
    rewards_raw: u128,
    #[serde(with = "dec")]
    volume_raw: u128,
    #[serde(with = "dec")]
    liquidation_raw: u128,
    #[serde(with = "dec")]
    trades_raw: u64,
    users_raw: u64,
    #[serde(with = "dec")]
    staker_fees_24h_raw: u128,
}

/// `/state/leaderboard/accounts`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Leaderboard {
    ok: bool,
    summary: LeaderSummary,
    accounts: Vec<LeaderRow>,
    page_info: PageInfo,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LeaderSummary {
    unique_accounts: usize,
    #[serde(with = "dec")]
    tracked_balance: u128,
}

/// One account; the figures in the order of `KEYS`, wads as decimal strings.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LeaderRow {
    rank: usize,
    #[serde(with = "hex")]
    address: Address,
    leaderboard_name: Option<String>,
    #[serde(with = "dec")]
    total_windowed_pnl: i128,
    #[serde(with = "dec")]
    realized_pnl: i128,
    #[serde(with = "dec")]
    current_unrealized_pnl: i128,
    #[serde(with = "dec")]
    current_balance: i128,
    #[serde(with = "dec")]
    current_queued: i128,
    #[serde(with = "dec")]
    current_open_notional: i128,
    #[serde(with = "dec")]
    total_volume: i128,
    #[serde(with = "dec")]
    paper_total: i128,
    current_open_position_count: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PageInfo {
    page: usize,
    page_size: usize,
    total_pages: usize,
    total_items: usize,
}
