//! `quote`, `ladder` and `close-quote`: pre-trade numbers, exactly as the protocol settles them.

use clap::Args;

use crate::answers::quote::{self as report, CloseAsk, QuoteAsk, Ticket};
use crate::protocol::pretrade::{Position, Scenario, percent_text};
use crate::protocol::units::{WAD, signed};

use super::args::MarketArgs;
use super::output::say;
use super::output::{Align, CliError, Table, price, print_json, usd, usd_signed};
use super::{Context, args};

#[derive(Debug, Args)]
pub(crate) struct QuoteArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// Whole-number leverage, 1 to 1000.
    #[arg(long, allow_hyphen_values = true)]
    pub leverage: String,
    /// Entry price in USD (default: the live mark; required with --offline).
    #[arg(long, allow_hyphen_values = true)]
    pub entry: Option<String>,
    /// One exit price in USD.
    #[arg(long, conflicts_with = "move_pct", allow_hyphen_values = true)]
    pub exit: Option<String>,
    /// One signed price move from entry in percent (0.1 is +0.1%).
    #[arg(long = "move", value_name = "PCT", allow_hyphen_values = true)]
    pub move_pct: Option<String>,
    /// Use the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub(crate) struct LadderArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// Entry price in USD (default: the live mark; required with --offline).
    #[arg(long, allow_hyphen_values = true)]
    pub entry: Option<String>,
    /// Use the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CloseQuoteArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// The position's leverage.
    #[arg(long, allow_hyphen_values = true)]
    pub leverage: String,
    /// The position's entry price in USD.
    #[arg(long, allow_hyphen_values = true)]
    pub entry: String,
    /// Exit price in USD (default: the live mark; required with --offline).
    #[arg(long, allow_hyphen_values = true)]
    pub exit: Option<String>,
    /// Use the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

fn ticket(a: &MarketArgs) -> Ticket<'_> {
    Ticket {
        market: &a.market,
        side: &a.side,
        margin: &a.margin,
    }
}

/// The inputs that need no market, checked before any network access.
fn precheck(a: &MarketArgs, leverage: Option<&str>) -> Result<(), CliError> {
    args::side(&a.side)?;
    args::margin(&a.margin)?;
    if let Some(l) = leverage {
        args::leverage(l)?;
    }
    Ok(())
}

fn note(s: &Scenario) -> &'static str {
    if s.liquidated {
        "liquidated: margin lost"
    } else if s.gross_pnl > 0 && s.valuation.raw_pnl == 0 {
        "inside the deadband"
    } else {
        ""
    }
}

fn scenario_table(p: &Position, scenarios: &[Scenario]) -> String {
    let mut table = Table::new(&[
        ("EXIT", Align::Right),
        ("MOVE", Align::Right),
        ("RAW PNL", Align::Right),
        ("ADJUSTED", Align::Right),
        ("WIN FEE", Align::Right),
        ("NET PNL", Align::Right),
        ("ON MARGIN", Align::Right),
        ("", Align::Left),
    ])
    .keep(&[10, 9, 5, 4, 6, 10, 7, 8]);
    for s in scenarios {
        let net = s.net_pnl(p.margin);
        let movement = i128::from(s.exit) - i128::from(p.entry);
        let mv = percent_text(movement, u128::from(p.entry), 2);
        table.row(vec![
            price(s.exit, p.market.price_scale),
            format!("{}{mv}%", if movement > 0 { "+" } else { "" }),
            usd_signed(s.gross_pnl),
            usd_signed(s.adjusted_pnl(p.margin)),
            usd(signed(s.win_fee())),
            usd_signed(net),
            format!("{}%", percent_text(net, p.margin, 1)),
            note(s).to_string(),
        ]);
    }
    table.render()
}

fn side_word(is_long: bool) -> &'static str {
    if is_long { "LONG" } else { "SHORT" }
}

pub async fn quote(ctx: &Context, a: QuoteArgs) -> Result<(), CliError> {
    precheck(&a.position, Some(&a.leverage))?;
    let data = report::market_data(&ctx.http, a.offline, &a.position.market).await?;
    let ask = QuoteAsk {
        leverage: &a.leverage,
        entry: a.entry.as_deref(),
        exit: a.exit.as_deref(),
        move_pct: a.move_pct.as_deref(),
    };
    let q = report::quote(&data, &ticket(&a.position), &ask)?;
    if ctx.json {
        print_json(&q.json());
        return Ok(());
    }
    let p = &q.position;
    let (market, leverage, entry) = (p.market, p.leverage, p.entry);
    let bust = p.bust();
    let distance = percent_text(i128::from(entry.abs_diff(bust)), u128::from(entry), 4);
    say!(
        "{} {} {leverage}x · margin {} · notional {}",
        side_word(p.is_long),
        market.symbol,
        usd(signed(p.margin)),
        usd(signed(p.notional()))
    );
    say!(
        "entry {} ({}) · bust {} ({distance}% away)",
        price(entry, market.price_scale),
        q.entry_source,
        price(bust, market.price_scale)
    );
    match &q.validation {
        Ok(()) => say!("open: passes the relayer's checks"),
        Err(r) => say!("open: WOULD BE REFUSED: {r}"),
    }
    say!(
        "max margin at {leverage}x: {} (limited by {})",
        usd(signed(q.capacity.max_margin)),
        q.capacity.limit.label()
    );
    say!("\n{}\n", scenario_table(p, &q.scenarios));
    say!(
        "The bust price is {distance}% away: a move that far against you at {leverage}x liquidates the position and the whole margin is lost."
    );
    say!("{}", data.parameters_line());
    Ok(())
}

pub async fn ladder(ctx: &Context, a: LadderArgs) -> Result<(), CliError> {
    precheck(&a.position, None)?;
    let data = report::market_data(&ctx.http, a.offline, &a.position.market).await?;
    let l = report::ladder(&data, &ticket(&a.position), a.entry.as_deref())?;
    if ctx.json {
        print_json(&l.json());
        return Ok(());
    }
    let (market, entry) = (l.market, l.entry);
    say!(
        "{} {} · margin {} · entry {} ({})\n",
        side_word(l.is_long),
        market.symbol,
        usd(signed(l.margin)),
        price(entry, market.price_scale),
        l.entry_source
    );
    let mut table = Table::new(&[
        ("LEVERAGE", Align::Right),
        ("NOTIONAL", Align::Right),
        ("BUST", Align::Right),
        ("DISTANCE", Align::Right),
        ("OPEN", Align::Left),
    ])
    .keep(&[10, 6, 10, 9, 10]);
    for (p, v) in &l.steps {
        let bust = p.bust();
        table.row(vec![
            format!("{}x", p.leverage),
            usd(signed(p.notional())),
            price(bust, market.price_scale),
            format!(
                "{}%",
                percent_text(i128::from(entry.abs_diff(bust)), u128::from(entry), 4)
            ),
            // The code keeps the row within 80 columns; each reason is said in full below.
            match v {
                Ok(()) => "ok".into(),
                Err(r) => format!("refused: {}", r.code()),
            },
        ]);
    }
    say!("{}", table.render());
    let mut said = Vec::new();
    for (p, v) in &l.steps {
        if let Err(r) = v
            && !said.contains(&r.code())
        {
            said.push(r.code());
            say!("{}: at {}x, {r}", r.code(), p.leverage);
        }
    }
    say!();
    say!("{}", data.parameters_line());
    Ok(())
}

pub async fn close_quote(ctx: &Context, a: CloseQuoteArgs) -> Result<(), CliError> {
    precheck(&a.position, Some(&a.leverage))?;
    let data = report::market_data(&ctx.http, a.offline, &a.position.market).await?;
    let ask = CloseAsk {
        leverage: &a.leverage,
        entry: &a.entry,
        exit: a.exit.as_deref(),
    };
    let c = report::close_quote(&data, &ticket(&a.position), &ask)?;
    if ctx.json {
        print_json(&c.json());
        return Ok(());
    }
    let (p, s) = (&c.position, &c.scenario);
    let market = p.market;
    say!(
        "{} {} {}x · margin {} · entry {} · bust {}",
        side_word(p.is_long),
        market.symbol,
        p.leverage,
        usd(signed(p.margin)),
        price(p.entry, market.price_scale),
        price(p.bust(), market.price_scale)
    );
    say!(
        "close at {} ({}):\n",
        price(s.exit, market.price_scale),
        c.exit_source
    );
    say!("{}\n", scenario_table(p, std::slice::from_ref(s)));
    if s.liquidated {
        say!(
            "The exit is at or beyond the bust price: the position is liquidated and pays nothing."
        );
    } else {
        let keep = match s.valuation.keep {
            Some(k) => format!(" · impact keeps {}%", percent_text(signed(k), WAD, 2)),
            None => String::new(),
        };
        say!(
            "pays {} (margin {} {} net){keep}",
            usd(c.payout),
            usd(signed(p.margin)),
            usd_signed(s.net_pnl(p.margin))
        );
    }
    say!("{}", data.parameters_line());
    Ok(())
}
