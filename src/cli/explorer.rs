//! The explorer's commands over any wallet (read-only, nothing is ever signed): `leaderboard`,
//! `top-traders`, `wallet`, `intents`, `lookup`, `history`, `search`. The figures are
//! `analytics`' (one function each); this file reads, picks the output and draws tables.

use clap::Args;
use serde_json::{Value, json};

use crate::analytics::history;
use crate::analytics::leaderboard::Ranked;
use crate::analytics::search::Query;
use crate::analytics::wallet::BalanceSheet;
use crate::protocol::leaderboard::SortKey;
use crate::protocol::units::{signed, wad_text};

use super::Context;
use super::output::say;
use super::output::{
    Align, CliError, Precision, Table, print_json, time_utc, usd, usd_signed, usd_signed_shown,
};

use crate::answers::explorer::{self as report, SORT_KEYS, WINDOWS};

#[derive(Debug, Args)]
pub(crate) struct LeaderboardArgs {
    /// The window the PnL and volume are counted over.
    #[arg(long, default_value = "24h", value_parser = clap::builder::PossibleValuesParser::new(WINDOWS))]
    pub window: String,
    /// What the board is sorted by.
    #[arg(long = "sort-key", default_value = "totalWindowedPnl",
          value_parser = clap::builder::PossibleValuesParser::new(SORT_KEYS))]
    pub sort_key: String,
    #[arg(long = "sort-dir", default_value = "desc",
          value_parser = clap::builder::PossibleValuesParser::new(["asc", "desc"]))]
    pub sort_dir: String,
    /// 0-based page of 25.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=100_000), allow_hyphen_values = true)]
    pub page: u64,
    /// Part of a leaderboard name or address (searched over the first 2,000 wallets read).
    #[arg(long)]
    pub query: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct TopTradersArgs {
    #[arg(long, default_value = "24h", value_parser = clap::builder::PossibleValuesParser::new(WINDOWS))]
    pub window: String,
    /// How many traders (1 to 25).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=25), allow_hyphen_values = true)]
    pub limit: u64,
}

#[derive(Debug, Args)]
pub(crate) struct WalletArgs {
    /// Wallet address: 0x followed by 40 hex characters.
    #[arg(value_name = "ADDR")]
    pub address: String,
}

/// How long to follow a wallet's account stream for what only its patches carry.
#[derive(Debug, Args, Clone, Copy)]
pub(crate) struct FollowArgs {
    /// Seconds to follow the account stream for outcomes and closes (0 to 600; 0 reads the
    /// snapshot only).
    #[arg(long = "wait", value_name = "SECS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=600), allow_hyphen_values = true)]
    pub secs: u64,
}

#[derive(Debug, Args)]
pub(crate) struct IntentsArgs {
    #[arg(value_name = "ADDR")]
    pub address: String,
    #[command(flatten)]
    pub follow: FollowArgs,
}

#[derive(Debug, Args)]
pub(crate) struct LookupArgs {
    /// The intent id: 0x followed by 64 hex characters.
    #[arg(value_name = "INTENT_ID")]
    pub intent_id: String,
    /// The wallet that signed it: adds its relayer queue rank, stream and open positions.
    #[arg(long, value_name = "0x…")]
    pub wallet: Option<String>,
    #[command(flatten)]
    pub follow: FollowArgs,
}

#[derive(Debug, Args)]
pub(crate) struct DecodeTxArgs {
    /// The transaction hash: 0x followed by 64 hex characters.
    #[arg(value_name = "TX_HASH")]
    pub tx_hash: String,
}

#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    #[arg(value_name = "ADDR")]
    pub address: String,
    #[arg(long, default_value = "all", value_parser = clap::builder::PossibleValuesParser::new(["all", "losses"]))]
    pub filter: String,
    /// 0-based page.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=100_000), allow_hyphen_values = true)]
    pub page: u64,
    /// Trades per page (1 to 75).
    #[arg(long, default_value_t = 75, value_parser = clap::value_parser!(u64).range(1..=75), allow_hyphen_values = true)]
    pub limit: u64,
    #[command(flatten)]
    pub follow: FollowArgs,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Address, intent id, position id or part of a leaderboard name.
    #[arg(value_name = "QUERY")]
    pub query: String,
}

pub async fn leaderboard(ctx: &Context, a: LeaderboardArgs) -> Result<(), CliError> {
    let r = report::request(
        &a.window,
        &a.sort_key,
        &a.sort_dir,
        a.page,
        a.query.as_deref(),
    )?;
    let board = report::board(&ctx.http, r).await?;
    if ctx.json {
        print_json(&board.json());
        return Ok(());
    }
    let r = &board.request;
    say!(
        "leaderboard · window {} · sorted by {} {} · page {} of {} · {} wallets",
        r.window.name(),
        r.sort_key.name(),
        r.sort_dir.name(),
        r.page + 1,
        board.total_pages.max(1),
        board.total_accounts
    );
    if let Some(q) = &r.query {
        say!(
            "search {:?}: {} match(es) in the {} wallets read{}",
            crate::text::sanitize_line(q, 60),
            board.matched.unwrap_or(0),
            board.scanned,
            if board.complete {
                ""
            } else {
                " (not the whole board)"
            }
        );
    }
    say!("{}", ranked_table(&board.accounts, r.sort_key));
    Ok(())
}

fn ranked_table(rows: &[Ranked], key: SortKey) -> String {
    let mut t = Table::new(&[
        ("RANK", Align::Right),
        ("WALLET", Align::Left),
        ("NAME", Align::Left),
        ("PNL", Align::Right),
        ("VOLUME", Align::Right),
        ("OPEN", Align::Right),
        (key.name(), Align::Right),
    ])
    .keep(&[10, 9, 5, 10, 6, 7, 8]);
    for r in rows {
        let mut cells = vec![
            r.rank.to_string(),
            format!("{:#x}", r.address),
            r.name.clone().unwrap_or_else(|| "—".into()),
        ];
        cells.extend(r.figures(key));
        t.row(cells);
    }
    if rows.is_empty() {
        return "no wallets on this page".into();
    }
    t.render()
}

pub async fn top_traders(ctx: &Context, a: TopTradersArgs) -> Result<(), CliError> {
    let w = report::window(&a.window)?;
    let top = report::top_traders(&ctx.http, w, a.limit as usize).await?;
    if ctx.json {
        print_json(&top.json());
        return Ok(());
    }
    say!("top traders by windowed PnL · window {}", w.name());
    say!("{}", ranked_table(&top.traders, SortKey::TotalWindowedPnl));
    Ok(())
}

pub async fn wallet(ctx: &Context, a: WalletArgs) -> Result<(), CliError> {
    let address = report::wallet("<ADDR>", &a.address)?;
    let sheet = report::balance_sheet(&ctx.http, address).await?;
    if ctx.json {
        print_json(&sheet.json(&report::stream_url(&ctx.http, address)));
        return Ok(());
    }
    print_sheet(&sheet);
    Ok(())
}

fn print_sheet(s: &BalanceSheet) {
    let a = &s.account;
    let l = &a.lifetime;
    say!(
        "{:#x}{}",
        a.address,
        s.name
            .as_deref()
            .map(|n| format!(" · {n}"))
            .unwrap_or_default()
    );
    say!(
        "balance {} · available {} · queued {} · locked {}",
        usd(signed(a.balance)),
        usd(signed(a.funds.available_balance)),
        usd(signed(a.queued)),
        usd(signed(a.locked))
    );
    say!(
        "{} open position(s) · {} pending intent(s) · unrealised (close at the mark) {}",
        a.open_positions.len(),
        a.operations.len(),
        s.unrealized.map_or("—".into(), usd_signed)
    );
    say!(
        "PAPER held {} · staked {} · pending staking reward {}",
        wad_text(signed(a.paper.balance), 2),
        wad_text(signed(a.paper.staked), 2),
        usd(signed(s.pending_reward))
    );
    say!(
        "lifetime: deposited {} · withdrawn {} · realised PnL {} · fees {} · traded {}",
        usd(signed(l.deposited)),
        usd(signed(l.withdrawn)),
        usd_signed(l.realized_pnl),
        usd(signed(l.fees_paid)),
        usd(signed(l.traded_notional))
    );
    let active = a.session_keys.iter().filter(|k| k.expiry > s.now_s).count();
    say!(
        "session keys: {} registered, {active} active",
        a.session_keys.len()
    );
    let mut t = Table::new(&[
        ("WINDOW", Align::Left),
        ("RANK", Align::Right),
        ("PNL", Align::Right),
    ]);
    for r in &s.ranks {
        t.row(vec![
            r.window.name().into(),
            match r.rank {
                Some(n) => n.to_string(),
                None if r.scanned == 0 => "unavailable".into(),
                None => format!("not in the top {}", r.scanned),
            },
            r.pnl.map_or("—".into(), usd_signed),
        ]);
    }
    say!("\n{}", t.render());
}

pub async fn intents(ctx: &Context, a: IntentsArgs) -> Result<(), CliError> {
    let address = report::wallet("<ADDR>", &a.address)?;
    let (value, outcomes) =
        report::intents(&ctx.http, &ctx.data_dir, address, a.follow.secs).await?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    say!("{:#x}: {} pending intent(s)", address, value["count"]);
    print_pending(&value["pending"]);
    for o in &outcomes {
        say!("intent {:#x} {}", o.intent_id, o.outcome.label());
    }
    Ok(())
}

fn print_pending(pending: &Value) {
    let rows = pending.as_array().cloned().unwrap_or_default();
    if rows.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        ("INTENT", Align::Left),
        ("ACTION", Align::Left),
        ("MARKET", Align::Left),
        ("AMOUNT", Align::Right),
        ("RANK", Align::Right),
        ("DEADLINE", Align::Right),
    ]);
    let text = |v: &Value| match v {
        Value::Null => "—".to_string(),
        Value::String(s) => crate::text::sanitize_line(s, 40),
        other => other.to_string(),
    };
    for r in rows {
        t.row(vec![
            text(&r["intent_id"]),
            text(&r["action"]),
            format!("{} {}", text(&r["market"]), text(&r["side"])),
            text(&r["amount"]),
            text(&r["queue_rank"]),
            if r["deadline_passed"] == json!(true) {
                "passed".into()
            } else {
                text(&r["deadline"])
            },
        ]);
    }
    say!("{}", t.render());
}

pub async fn lookup(ctx: &Context, a: LookupArgs) -> Result<(), CliError> {
    let id = report::intent_id("<INTENT_ID>", &a.intent_id)?;
    let wallet = a
        .wallet
        .as_deref()
        .map(|w| report::wallet("wallet", w))
        .transpose()?;
    let value = report::lookup(&ctx.http, &ctx.data_dir, id, wallet, a.follow.secs).await?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    print_lookup(&value);
    Ok(())
}

/// `decode-tx`: the transaction and its receipt over the HyperEVM RPC (`--rpc-url`), the same
/// answer as the `decode_transaction` tool.
pub async fn decode_tx(ctx: &Context, a: DecodeTxArgs) -> Result<(), CliError> {
    let hash = crate::answers::transaction::tx_hash("<TX_HASH>", &a.tx_hash)?;
    let value = crate::answers::transaction::decode(&ctx.http, hash).await?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    let text = |k: &str| value[k].as_str().unwrap_or("—").to_string();
    if value["found"] == json!(false) {
        say!("transaction {}: not found", text("tx_hash"));
        say!("{}", text("note"));
        return Ok(());
    }
    say!(
        "transaction {}: {}{}",
        text("tx_hash"),
        text("status"),
        value["block_number"]
            .as_u64()
            .map(|b| format!(" in block {b}"))
            .unwrap_or_default()
    );
    say!(
        "from {} to {} · {} bytes of calldata",
        text("from"),
        value["to"].as_str().unwrap_or("(a contract creation)"),
        value["calldata_bytes"]
    );
    say!("{}", text("intents_note"));
    Ok(())
}

fn print_lookup(v: &Value) {
    say!(
        "intent {}: {}",
        v["intent_id"].as_str().unwrap_or(""),
        v["state"].as_str().unwrap_or("")
    );
    let audit = &v["audit"];
    if audit.is_object() {
        let text = |k: &str| audit[k].as_str().unwrap_or("—").to_string();
        say!(
            "in this machine's audit log: {} signed at {} UTC · sent: {} · outcome: {}",
            text("action"),
            audit["signed_at"]
                .as_u64()
                .map_or("—".into(), crate::clock::utc_minute_text),
            text("submission"),
            text("outcome")
        );
    }
    if let Some(rank) = v["pending"]["queue_rank"].as_u64() {
        say!("queued in the relayer at place {rank}");
    }
    if let Some(p) = v["position_id"].as_str() {
        say!("opened position {p}");
    }
    let feed = v["feed"].as_array().cloned().unwrap_or_default();
    if !feed.is_empty() {
        say!("in the recent-trades feed: {} row(s)", feed.len());
    }
    if !v["wallet_checked"].as_bool().unwrap_or(false) {
        say!("(pass --wallet 0x… to check its queue and account stream)");
    }
    say!(
        "settlement: {}",
        v["settlement_note"].as_str().unwrap_or("")
    );
}

pub async fn history(ctx: &Context, a: HistoryArgs) -> Result<(), CliError> {
    let address = report::wallet("<ADDR>", &a.address)?;
    let page = report::history(
        &ctx.http,
        &ctx.data_dir,
        address,
        &a.filter,
        a.page,
        a.limit as usize,
        a.follow.secs,
    )
    .await?;
    let filter = page.filter;
    if ctx.json {
        print_json(&page.json());
        return Ok(());
    }
    say!(
        "{:#x}: {} closed trade(s) ({}), page {}",
        address,
        page.total,
        filter.name(),
        page.page + 1
    );
    if !page.trades.is_empty() {
        let mut t = Table::new(&[
            ("TIME (UTC)", Align::Left),
            ("POSITION", Align::Right),
            ("MARKET", Align::Left),
            ("SIDE", Align::Left),
            ("LEV", Align::Right),
            ("EXIT", Align::Right),
            ("NET PNL", Align::Right),
            ("PAPER", Align::Right),
            ("", Align::Left),
            ("FROM", Align::Left),
        ])
        .keep(&[7, 10, 10, 9, 6, 8, 10, 4, 9, 3]);
        let precision = Precision::read(&ctx.http).await;
        for tr in &page.trades {
            t.row(vec![
                tr.time.map_or("—".into(), time_utc),
                tr.position_id.to_string(),
                tr.market.clone(),
                if tr.is_long { "LONG" } else { "SHORT" }.into(),
                tr.leverage.map_or("—".into(), |l| format!("{l}x")),
                tr.exit
                    .map_or("—".into(), |x| precision.price(&tr.market, None, x)),
                tr.net_pnl
                    .map(usd_signed)
                    .or_else(|| tr.feed_pnl_usd.map(usd_signed_shown))
                    .unwrap_or_else(|| "—".into()),
                tr.paper_minted
                    .map_or("—".into(), |p| wad_text(signed(p), 4)),
                if tr.liquidated { "LIQUIDATED" } else { "" }.into(),
                tr.sources().join("+"),
            ]);
        }
        say!("{}", t.render());
    }
    let f = &page.file;
    if f.records > 0 || f.skipped > 0 || f.error.is_some() {
        say!(
            "history file: {} close(s){}{}{}",
            f.records,
            if f.skipped > 0 {
                format!(", {} unreadable line(s) skipped", f.skipped)
            } else {
                String::new()
            },
            if f.truncated {
                ", only its newest part read"
            } else {
                ""
            },
            f.error
                .as_deref()
                .map(|e| format!(", not read: {e}"))
                .unwrap_or_default()
        );
    }
    say!("{}", f.coverage.summary());
    say!("note: {}", history::HISTORY_NOTE);
    Ok(())
}

pub async fn search(ctx: &Context, a: SearchArgs) -> Result<(), CliError> {
    let (query, value) = report::search(&ctx.http, &ctx.data_dir, &a.query).await?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    say!(
        "{} → {} (next: {})",
        crate::text::sanitize_line(&a.query, 80),
        query.kind(),
        query.next().1
    );
    match &query {
        Query::Wallet(_) => say!(
            "balance {} · {} open position(s) · {} pending",
            value["result"]["balance_usd"],
            value["result"]["open_positions"],
            value["result"]["pending_operations"]
        ),
        Query::Hash(_) => print_lookup(&value["result"]),
        Query::Position(_) => say!(
            "{} feed row(s) for this position",
            value["result"]["feed"].as_array().map_or(0, Vec::len)
        ),
        Query::Name(_) => {
            let matched = value["result"]["matched"].as_u64().unwrap_or(0);
            say!("{matched} wallet(s) match");
            for r in value["result"]["accounts"].as_array().into_iter().flatten() {
                say!(
                    "  #{} {} {}",
                    r["rank"],
                    r["address"].as_str().unwrap_or(""),
                    crate::text::sanitize_line(r["leaderboard_name"].as_str().unwrap_or("—"), 48)
                );
            }
        }
    }
    Ok(())
}
