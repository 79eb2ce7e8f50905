//! `bust-map`, `closest-to-bust`, `bust-clusters`, `wallet-risk` and `liquidation-map`: the
//! liquidations service's tools (`../shared/seeds/004_…`) and the risk previews (`003_…`) over
//! a scan of the wallets with the most open notional. Thin: parse, scan, call
//! `analytics::liquidations`, print. Every figure is reported beside its coverage.

use clap::Args;

use crate::analytics::liquidations::{
    AtRisk, Coverage, DEFAULT_BUCKETS, DEFAULT_CLOSEST, DEFAULT_CLUSTERS, DEFAULT_WALLETS,
    MAX_BUCKETS, MAX_CASCADE_PERCENT, MAX_CLOSEST, MAX_CLUSTERS, MAX_WALLETS,
};
use crate::protocol::pretrade::{fraction_json, percent_text};
use crate::protocol::units::signed;
use crate::text::sanitize_line;

use super::Context;
use super::args;
use super::output::say;
use super::output::{Align, CliError, Table, price, print_json, usd};

fn ranged(lo: u64, hi: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(lo..=hi)
}

#[derive(Debug, Args)]
pub(crate) struct ScanArgs {
    /// Wallets to scan, most open notional first (1 to 44).
    #[arg(long, default_value_t = DEFAULT_WALLETS, value_parser = ranged(1, MAX_WALLETS as u64))]
    pub wallets: usize,
}

#[derive(Debug, Args)]
pub(crate) struct BustMapArgs {
    /// Market symbol or id (BTC, ETH).
    #[arg(long)]
    pub market: String,
    /// Bucket size in USD (default: about 0.25% of the mark, rounded to 1, 2 or 5 × 10^k).
    #[arg(long = "bucket-usd", allow_hyphen_values = true)]
    pub bucket_usd: Option<String>,
    /// Also what a move of this many percent either way would bust (0 to 25).
    #[arg(long = "cascade-percent", allow_hyphen_values = true)]
    pub cascade_percent: Option<String>,
    /// Buckets in the window around the mark (1 to 200).
    #[arg(long = "max-buckets", default_value_t = DEFAULT_BUCKETS, value_parser = ranged(1, MAX_BUCKETS as u64))]
    pub max_buckets: usize,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ClosestArgs {
    /// BTC, ETH (or any listed market) or all.
    #[arg(long, default_value = "all")]
    pub market: String,
    /// long, short or both.
    #[arg(long, default_value = "both")]
    pub side: String,
    /// Only positions at most this many percent from their bust.
    #[arg(long = "max-distance-percent", allow_hyphen_values = true)]
    pub max_distance_percent: Option<String>,
    /// How many to list (1 to 50).
    #[arg(long, default_value_t = DEFAULT_CLOSEST, value_parser = ranged(1, MAX_CLOSEST as u64))]
    pub limit: usize,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ClustersArgs {
    /// Market symbol or id (BTC, ETH).
    #[arg(long)]
    pub market: String,
    /// Clusters per side (1 to 10).
    #[arg(long, default_value_t = DEFAULT_CLUSTERS, value_parser = ranged(1, MAX_CLUSTERS as u64))]
    pub clusters: usize,
    /// Cluster width in USD (default as for bust-map).
    #[arg(long = "bucket-usd", allow_hyphen_values = true)]
    pub bucket_usd: Option<String>,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub(crate) struct WalletRiskArgs {
    /// The wallet (0x followed by 40 hex digits).
    #[arg(value_name = "ADDR")]
    pub wallet: String,
}

#[derive(Debug, Args)]
pub(crate) struct LiquidationMapArgs {
    /// Market symbol or id (BTC, ETH).
    #[arg(long)]
    pub market: String,
    /// Bucket size in USD (default as for bust-map).
    #[arg(long = "bucket-usd", allow_hyphen_values = true)]
    pub bucket_usd: Option<String>,
    #[command(flatten)]
    pub scan: ScanArgs,
}

use crate::answers::liquidations::{self as report, Gathered, gather, percent};

fn scan_lines(g: &Gathered, cov: &Coverage) -> String {
    let mut text = format!(
        "scanned {} of the top {} wallets by open notional ({} positions); coverage {} of {} open interest",
        g.scan.accounts(g.wallets).len(),
        g.scan.wallets.len().min(g.wallets),
        g.book.positions.len(),
        coverage_text(cov),
        usd(signed(cov.total_usd)),
    );
    for (w, why) in g.scan.failures(g.wallets) {
        text.push_str(&format!(
            "\n  not read: {w:#x}: {}",
            sanitize_line(why, 160)
        ));
    }
    text
}

fn coverage_text(c: &Coverage) -> String {
    format!("{}%", percent_text(signed(c.scanned_usd), c.total_usd, 1))
}

pub async fn bust_map(ctx: &Context, a: BustMapArgs) -> Result<(), CliError> {
    let cascade = a
        .cascade_percent
        .as_deref()
        .map(|t| percent("cascade-percent", t, 2, MAX_CASCADE_PERCENT))
        .transpose()?
        .map(|p| p as u32);
    let g = gather(&ctx.http, Some(&a.market), a.scan.wallets).await?;
    let (value, m, mark, bucket, map) = report::bust_map(
        &g,
        &a.market,
        a.bucket_usd.as_deref(),
        cascade,
        a.max_buckets,
    )?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    let cov = g.coverage(Some(m.id));
    let scale = m.price_scale;
    say!(
        "{} bust map · mark {} · bucket ${}",
        sanitize_line(&m.symbol, 24),
        price(mark, scale),
        price(bucket, scale)
    );
    say!("{}", scan_lines(&g, &cov));
    let mut table = Table::new(&[
        ("BUST PRICE", Align::Left),
        ("LONG", Align::Right),
        ("SHORT", Align::Right),
        ("POS", Align::Right),
        ("CUM LONG", Align::Right),
        ("CUM SHORT", Align::Right),
    ])
    .keep(&[10, 10, 10, 6, 5, 5]);
    let cell = |w: u128| {
        if w == 0 {
            "·".to_string()
        } else {
            usd(signed(w))
        }
    };
    // Highest price on top, as a ladder reads; the mark's bucket is flagged.
    for b in map.buckets.iter().rev() {
        let here = (b.low..b.high).contains(&mark);
        table.row(vec![
            format!(
                "{}–{}{}",
                price(b.low, scale),
                price(b.high, scale),
                if here { " ◀ mark" } else { "" }
            ),
            cell(b.totals.long_notional),
            cell(b.totals.short_notional),
            b.totals.positions().to_string(),
            cell(b.cumulative_long),
            cell(b.cumulative_short),
        ]);
    }
    say!("{}", table.render());
    say!(
        "outside the window: {} long, {} short ({} positions); past bust: {} positions",
        usd(signed(map.outside.long_notional)),
        usd(signed(map.outside.short_notional)),
        map.outside.positions(),
        map.past_bust.positions(),
    );
    if let Some(c) = &map.cascade {
        say!(
            "cascade ±{}%: a fall to {} busts {} of longs, a rise to {} busts {} of shorts ({} positions)",
            percent_text(i128::from(c.percent_e2), 10_000, 2),
            price(c.down_price, scale),
            usd(signed(c.totals.long_notional)),
            price(c.up_price, scale),
            usd(signed(c.totals.short_notional)),
            c.totals.positions(),
        );
    }
    Ok(())
}

pub async fn closest_to_bust(ctx: &Context, a: ClosestArgs) -> Result<(), CliError> {
    let all = report::is_all(&a.market);
    let g = gather(
        &ctx.http,
        (!all).then_some(a.market.as_str()),
        a.scan.wallets,
    )
    .await?;
    let (value, ranked) = report::closest(
        &g,
        &a.market,
        &a.side,
        a.max_distance_percent.as_deref(),
        a.limit,
    )?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    print_positions(&ranked, true);
    Ok(())
}

fn print_positions(ranked: &[&AtRisk], with_wallet: bool) {
    let mut columns = vec![("#", Align::Right)];
    if with_wallet {
        columns.push(("WALLET", Align::Left));
    }
    columns.extend([
        ("MARKET", Align::Left),
        ("SIDE", Align::Left),
        ("LEV", Align::Right),
        ("NOTIONAL", Align::Right),
        ("MARK", Align::Right),
        ("BUST", Align::Right),
        ("TO BUST", Align::Right),
        ("DANGER", Align::Left),
    ]);
    // The wallet (when shown) and the rank stay; then what tells the danger.
    let keep: Vec<u8> = [10u8]
        .into_iter()
        .chain(with_wallet.then_some(9))
        .chain([10, 9, 6, 4, 5, 7, 10, 8])
        .collect();
    let mut table = Table::new(&columns).keep(&keep);
    for (i, p) in ranked.iter().enumerate() {
        let mut row = vec![(i + 1).to_string()];
        if with_wallet {
            let w = format!("{:#x}", p.wallet);
            row.push(format!("{}…{}", &w[..6], &w[w.len() - 4..]));
        }
        row.extend([
            sanitize_line(&p.symbol, 12),
            args::side_label(p.is_long).to_string(),
            format!("{}x", p.leverage),
            usd(signed(p.notional)),
            price(p.mark, p.price_scale),
            price(p.bust, p.price_scale),
            format!("{}%", percent_text(p.room(), u128::from(p.mark), 3)),
            p.danger().label().to_string(),
        ]);
        table.row(row);
    }
    if ranked.is_empty() {
        say!("no open positions match");
    } else {
        say!("{}", table.render());
    }
}

pub async fn bust_clusters(ctx: &Context, a: ClustersArgs) -> Result<(), CliError> {
    let g = gather(&ctx.http, Some(&a.market), a.scan.wallets).await?;
    let (value, m, mark, bucket, summary) =
        report::clusters(&g, &a.market, a.bucket_usd.as_deref(), a.clusters)?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    let cov = g.coverage(Some(m.id));
    let scale = m.price_scale;
    say!(
        "{} bust clusters · mark {} · width ${}",
        sanitize_line(&m.symbol, 24),
        price(mark, scale),
        price(bucket, scale)
    );
    say!("{}", scan_lines(&g, &cov));
    for (label, list, long) in [
        ("longs below the mark", &summary.longs, true),
        ("shorts above the mark", &summary.shorts, false),
    ] {
        say!("\n{label}:");
        let mut table = Table::new(&[
            ("#", Align::Right),
            ("BUST PRICE", Align::Left),
            ("NOTIONAL", Align::Right),
            ("POS", Align::Right),
            ("FROM MARK", Align::Right),
        ]);
        for (i, k) in list.iter().enumerate() {
            let distance = if long {
                i128::from(mark) - i128::from(k.weighted_bust)
            } else {
                i128::from(k.weighted_bust) - i128::from(mark)
            };
            table.row(vec![
                (i + 1).to_string(),
                format!("{}–{}", price(k.low, scale), price(k.high, scale)),
                usd(signed(k.notional)),
                k.positions.to_string(),
                format!("{}%", percent_text(distance, u128::from(mark), 2)),
            ]);
        }
        if list.is_empty() {
            say!("  none");
        } else {
            say!("{}", table.render());
        }
    }
    Ok(())
}

pub async fn wallet_risk(ctx: &Context, a: WalletRiskArgs) -> Result<(), CliError> {
    let wallet = args::address("<ADDR>", &a.wallet)?;
    let (value, risk) = report::wallet_risk(&ctx.http, wallet).await?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    say!(
        "{wallet:#x} · risk {} · equity {} · notional {} · effective leverage {}",
        risk.worst().map_or("none", |d| d.label()),
        usd(risk.equity),
        usd(signed(risk.notional)),
        if risk.equity > 0 {
            format!(
                "{}x",
                fraction_json(signed(risk.notional), risk.equity.unsigned_abs(), 2)
            )
        } else {
            "—".into()
        },
    );
    say!(
        "balance {} · available {} · queued {} · margin in positions {} · closing all pays {} (net {})",
        usd(signed(risk.balance)),
        usd(signed(risk.available)),
        usd(signed(risk.queued)),
        usd(signed(risk.locked)),
        usd(risk.close_pays),
        super::output::usd_signed(risk.close_net_pnl),
    );
    let ranked: Vec<&AtRisk> = risk.positions.iter().map(|p| &p.at).collect();
    print_positions(&ranked, false);
    if risk.unvalued > 0 {
        say!(
            "{} position(s) not valued (market unlisted or no mark)",
            risk.unvalued
        );
    }
    Ok(())
}

pub async fn liquidation_map(ctx: &Context, a: LiquidationMapArgs) -> Result<(), CliError> {
    let g = gather(&ctx.http, Some(&a.market), a.scan.wallets).await?;
    let (value, m, mark, bucket, map) =
        report::liquidation_map(&g, &a.market, a.bucket_usd.as_deref())?;
    if ctx.json {
        print_json(&value);
        return Ok(());
    }
    let cov = g.coverage(Some(m.id));
    let scale = m.price_scale;
    say!(
        "{} liquidation map · mark {} · bucket ${}",
        sanitize_line(&m.symbol, 24),
        price(mark, scale),
        price(bucket, scale)
    );
    say!("protocol-wide map: {}", report::NO_PROTOCOL_MAP);
    say!("{}", scan_lines(&g, &cov));
    let mut table = Table::new(&[
        ("BUST PRICE", Align::Left),
        ("LONG", Align::Right),
        ("SHORT", Align::Right),
        ("POS", Align::Right),
    ]);
    for b in map.buckets.iter().rev() {
        table.row(vec![
            format!("{}–{}", price(b.low, scale), price(b.high, scale)),
            usd(signed(b.totals.long_notional)),
            usd(signed(b.totals.short_notional)),
            b.totals.positions().to_string(),
        ]);
    }
    if map.buckets.is_empty() {
        say!("no standing positions in the scan");
    } else {
        say!("{}", table.render());
    }
    Ok(())
}
