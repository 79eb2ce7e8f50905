//! Protocol-wide views: `overview`, `trades`, `candles`, `paper-mint` (read-only). The figures
//! are `analytics`'; this file reads, picks the output and draws tables.

use clap::Args;
use serde_json::Value;

use crate::analytics::overview::HISTORY_COLUMNS;
use crate::analytics::trades::{CANDLE_INTERVALS, event_json};
use crate::protocol::reads::ProtocolHistory;
use crate::protocol::units::{signed, wad_text};

use super::Context;
use super::output::say;
use super::output::{
    Align, CliError, Precision, Table, price_shown, print_json, quantity_shown, time_utc, usd,
    usd_shown, usd_signed_shown,
};
use crate::answers::protocol as report;

#[derive(Debug, Args)]
pub(crate) struct OverviewArgs {
    /// How many latest trades to include (0 to 50).
    #[arg(long = "recent-trades", default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=50), allow_hyphen_values = true)]
    pub recent_trades: u64,
    /// The history series' interval.
    #[arg(long, default_value = "1h", value_parser = clap::builder::PossibleValuesParser::new(ProtocolHistory::INTERVALS))]
    pub interval: String,
}

#[derive(Debug, Args)]
pub(crate) struct TradesArgs {
    /// Only this market (symbol or id).
    #[arg(long)]
    pub market: Option<String>,
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["open", "close", "liquidation"]))]
    pub kind: Option<String>,
    /// How many (1 to 50).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=50), allow_hyphen_values = true)]
    pub limit: u64,
}

#[derive(Debug, Args)]
pub(crate) struct CandlesArgs {
    /// Market symbol or id.
    #[arg(long)]
    pub market: String,
    #[arg(long, default_value = "1h", value_parser = clap::builder::PossibleValuesParser::new(CANDLE_INTERVALS))]
    pub interval: String,
    /// How many candles (1 to 200).
    #[arg(long, default_value_t = 48, value_parser = clap::value_parser!(u64).range(1..=200), allow_hyphen_values = true)]
    pub limit: u64,
}

#[derive(Debug, Args)]
pub(crate) struct PaperMintArgs {
    /// Loss basis in USD to price (0 to 1,000,000,000).
    #[arg(
        long = "loss-basis-usd",
        default_value = "1",
        allow_hyphen_values = true
    )]
    pub loss_basis_usd: String,
}

/// A few lines of a value per point, as block characters (a person's glance, not data).
fn sparkline(values: &[f64], width: usize) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let step = values.len().div_ceil(width.max(1)).max(1);
    let points: Vec<f64> = values
        .chunks(step)
        .filter_map(|c| c.last().copied())
        .collect();
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    points
        .iter()
        .map(|v| {
            // A flat (or NaN) series has no range to spread: the lowest bar.
            if hi.partial_cmp(&lo) == Some(std::cmp::Ordering::Greater) {
                BARS[(((v - lo) / (hi - lo)) * 7.0).round().clamp(0.0, 7.0) as usize]
            } else {
                BARS[0]
            }
        })
        .collect()
}

pub async fn overview(ctx: &Context, a: OverviewArgs) -> Result<(), CliError> {
    let o = report::overview(&ctx.http, a.recent_trades as usize, &a.interval).await?;
    let (value, data, summary, feed, history, unavailable) = (
        &o.value,
        &o.data,
        &o.summary,
        &o.trades,
        &o.history,
        &o.unavailable,
    );
    if ctx.json {
        print_json(value);
        return Ok(());
    }
    let s = summary;
    say!(
        "TVL {} · LP {} · lifetime volume {} · {} open positions · trading {}",
        usd(signed(s.balances.tvl)),
        usd(s.balances.lp),
        usd(signed(s.activity.volume)),
        s.activity.open,
        if data.state.trading_paused {
            "PAUSED"
        } else {
            "open"
        }
    );
    say!(
        "PAPER supply {} · staked {} · fees pending {} · lifetime {}",
        wad_text(signed(s.paper.supply), 0),
        wad_text(signed(s.paper.staked), 0),
        usd(signed(s.fees.pending)),
        usd(signed(s.fees.lifetime))
    );
    let mut t = Table::new(&[
        ("MARKET", Align::Left),
        ("MARK", Align::Right),
        ("STATUS", Align::Left),
        ("MAX LEV", Align::Right),
        ("LONG OI / CAP", Align::Right),
        ("SHORT OI / CAP", Align::Right),
        ("24H VOLUME", Align::Right),
    ])
    .keep(&[10, 10, 9, 5, 6, 6, 7]);
    let text = |v: &Value| match v {
        Value::Null => "—".to_string(),
        Value::String(s) => crate::text::sanitize_line(s, 24),
        other => other.to_string(),
    };
    let money = |v: &Value| v.as_f64().map_or("—".into(), usd_shown);
    let precision = Precision::of(&data.state);
    for m in value["markets"].as_array().into_iter().flatten() {
        let side = |s: &Value| format!("{} / {}", money(&s["oi_usd"]), money(&s["cap_usd"]));
        let symbol = text(&m["symbol"]);
        t.row(vec![
            symbol.clone(),
            m["mark_price"]
                .as_f64()
                .map_or("—".into(), |x| precision.price(&symbol, None, x)),
            text(&m["status"]),
            text(&m["max_leverage"]),
            side(&m["long"]),
            side(&m["short"]),
            money(&m["volume_24h_usd"]),
        ]);
    }
    say!("\n{}", t.render());
    if let Some(h) = history {
        say!(
            "\nhistory ({} points, interval {})",
            h.columns.values().map(Vec::len).max().unwrap_or(0),
            a.interval
        );
        for column in HISTORY_COLUMNS {
            if let Some(values) = h.columns.get(column) {
                let last = values.last().copied().unwrap_or(0.0);
                say!("  {column:<10} {} {last:.2}", sparkline(values, 48));
            }
        }
    }
    if let Some(f) = feed {
        print_trades(
            &f.events
                .iter()
                .take(a.recent_trades as usize)
                .collect::<Vec<_>>(),
            &precision,
        );
    }
    for u in unavailable {
        say!("unavailable: {u}");
    }
    Ok(())
}

fn print_trades(rows: &[&crate::protocol::reads::TradeEvent], precision: &Precision) {
    if rows.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        ("TIME (UTC)", Align::Left),
        ("KIND", Align::Left),
        ("MARKET", Align::Left),
        ("SIDE", Align::Left),
        ("LEV", Align::Right),
        ("NOTIONAL", Align::Right),
        ("PRICE", Align::Right),
        ("PNL", Align::Right),
        ("WALLET", Align::Left),
    ])
    .keep(&[10, 10, 10, 9, 6, 7, 8, 8, 2]);
    for e in rows {
        let v = event_json(e);
        let market = v["market"].as_str().unwrap_or("").to_string();
        t.row(vec![
            time_utc(e.ts),
            v["kind"].as_str().unwrap_or("").to_uppercase(),
            market.clone(),
            v["side"].as_str().unwrap_or("").to_string(),
            format!("{}x", e.leverage),
            usd_shown(e.notional_usd),
            e.exit.or(e.entry).map_or("—".into(), |p| {
                precision.price(&market, Some(e.instrument_id), p)
            }),
            e.pnl_usd.map_or("—".into(), usd_signed_shown),
            format!("{:#x}", e.wallet),
        ]);
    }
    say!("\n{}", t.render());
}

pub async fn trades(ctx: &Context, a: TradesArgs) -> Result<(), CliError> {
    let t = report::recent_trades(
        &ctx.http,
        a.market.as_deref(),
        a.kind.as_deref(),
        a.limit as usize,
    )
    .await?;
    let rows = t.rows();
    if ctx.json {
        print_json(&t.json());
        return Ok(());
    }
    if rows.is_empty() {
        say!("no trades in the feed match");
    }
    print_trades(&rows, &Precision::read(&ctx.http).await);
    Ok(())
}

pub async fn candles(ctx: &Context, a: CandlesArgs) -> Result<(), CliError> {
    let c = report::candles(&ctx.http, &a.market, &a.interval, a.limit).await?;
    if ctx.json {
        print_json(&c.json());
        return Ok(());
    }
    let mut t = Table::new(&[
        ("TIME (UTC)", Align::Left),
        ("OPEN", Align::Right),
        ("HIGH", Align::Right),
        ("LOW", Align::Right),
        ("CLOSE", Align::Right),
        ("VOLUME", Align::Right),
    ])
    .keep(&[10, 6, 7, 7, 10, 5]);
    let decimals = crate::protocol::units::scale_decimals(c.price_scale).unwrap_or(0);
    let price = |s: &str| price_shown(s, decimals);
    for k in &c.candles {
        t.row(vec![
            time_utc(k.t),
            price(&k.o),
            price(&k.h),
            price(&k.l),
            price(&k.c),
            quantity_shown(&k.v),
        ]);
    }
    say!(
        "{} {} · {} candle(s) · change {}",
        c.market,
        a.interval,
        c.candles.len(),
        c.change_pct().map_or("—".into(), |p| format!("{p}%"))
    );
    if !c.candles.is_empty() {
        say!("{}", t.render());
    }
    Ok(())
}

pub async fn paper_mint(ctx: &Context, a: PaperMintArgs) -> Result<(), CliError> {
    let basis = report::loss_basis("loss-basis-usd", &a.loss_basis_usd)?;
    let e = report::paper_mint(&ctx.http, basis).await?;
    if ctx.json {
        print_json(&e.json());
        return Ok(());
    }
    say!(
        "a {} loss basis mints {} PAPER now ({} PAPER per $1, curve {})",
        usd(signed(e.loss_basis)),
        wad_text(signed(e.minted), 6),
        wad_text(signed(e.rate), 6),
        if e.decaying {
            "decaying past the cliff"
        } else {
            "flat below the cliff"
        }
    );
    say!(
        "PAPER supply {} · staked {}{}",
        wad_text(signed(e.supply), 2),
        wad_text(signed(e.staked), 2),
        if e.supply > 0 {
            format!(
                " ({}%)",
                crate::protocol::pretrade::percent_text(signed(e.staked), e.supply, 2)
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::units::WAD;

    #[test]
    fn the_loss_basis_is_bounded() {
        let loss_basis = |t| report::loss_basis("loss-basis-usd", t);
        assert_eq!(loss_basis("1").unwrap(), WAD);
        assert_eq!(loss_basis("0").unwrap(), 0);
        assert_eq!(loss_basis("1000000000").unwrap(), 1_000_000_000 * WAD);
        assert!(loss_basis("1000000000.000001").is_err());
        assert!(loss_basis("-1").is_err());
        assert!(loss_basis("abc").is_err());
    }

    #[test]
    fn a_sparkline_spans_its_range() {
        assert_eq!(sparkline(&[0.0, 7.0], 10), "▁█");
        assert_eq!(sparkline(&[3.0, 3.0], 10), "▁▁");
        assert_eq!(sparkline(&[], 10), "");
    }
}
