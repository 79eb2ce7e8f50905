//! The browser terminal's deep links (seed `001_…`, "Deep link parameters"), both ways:
//! `build_trade_plan` writes `?market=&side=&margin=&leverage=` links, and `--link URL` /
//! `open-link URL` read them back into the ticket's prefill. A link only fills a form: the
//! values it carries are checked one by one by whoever applies them (`cli::interactive`), and
//! nothing is signed until the trader confirms.

use super::AnswerError;
use crate::protocol::units::{WAD, format_scaled};

/// Where the browser terminal lives: the links `build_trade_plan` returns open there too.
pub const TERMINAL_ORIGIN: &str = "https://papertrade-terminal.pages.dev/";

/// A link longer than this is not one the terminal wrote: refused before it is parsed.
pub const MAX_LINK_CHARS: usize = 2048;

/// The four ticket parameters as a link (or the prefill flags) carry them: raw text, each
/// checked separately when applied, so a partly valid link still prefills what it can.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkTicket {
    pub market: Option<String>,
    pub side: Option<String>,
    pub margin: Option<String>,
    pub leverage: Option<String>,
}

impl LinkTicket {
    pub fn is_empty(&self) -> bool {
        *self == LinkTicket::default()
    }
}

/// Read a link: any `http(s)` address (the terminal's, `/app/`, a self-hosted copy) or a bare
/// `?query`. Other parameters (`embed`, `watch`, anything else) are ignored; a ticket
/// parameter given twice is ambiguous and dropped, with a note. Returns the ticket and the
/// notes of what was dropped.
pub fn parse(link: &str) -> Result<(LinkTicket, Vec<String>), AnswerError> {
    let field = "link";
    let link = link.trim();
    if link.len() > MAX_LINK_CHARS {
        return Err(AnswerError::input(
            field,
            format!(
                "is {} characters long; a terminal link is at most {MAX_LINK_CHARS}",
                link.len()
            ),
        ));
    }
    let absolute = if link.starts_with('?') {
        format!("{TERMINAL_ORIGIN}{link}")
    } else {
        link.to_string()
    };
    let url = reqwest::Url::parse(&absolute).map_err(|e| {
        AnswerError::input(
            field,
            format!(
                "is not a link ({e}): give the whole address, such as {TERMINAL_ORIGIN}?market=BTC&side=long&margin=50&leverage=10"
            ),
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(AnswerError::input(
            field,
            format!(
                "must be an http or https address, got a {:?} one",
                url.scheme()
            ),
        ));
    }
    let mut ticket = LinkTicket::default();
    let mut notes = Vec::new();
    let mut twice = Vec::new();
    for (name, value) in url.query_pairs() {
        let slot = match name.as_ref() {
            "market" => &mut ticket.market,
            "side" => &mut ticket.side,
            "margin" => &mut ticket.margin,
            "leverage" => &mut ticket.leverage,
            _ => continue,
        };
        if slot.is_some() || twice.contains(&name) {
            *slot = None;
            if !twice.contains(&name) {
                notes.push(format!("{name} dropped: the link gives it more than once"));
                twice.push(name);
            }
            continue;
        }
        *slot = Some(value.into_owned());
    }
    if ticket.is_empty() && notes.is_empty() {
        return Err(AnswerError::input(
            field,
            "carries no ticket: it needs at least one of market, side, margin and leverage",
        ));
    }
    Ok((ticket, notes))
}

/// The market parameter's own rule: a symbol of 1 to 12 letters or digits, or a market id.
/// Whether it names a listed market is known only once the markets are read.
pub fn market_text(text: &str) -> Result<String, String> {
    let t = text.trim();
    if (1..=12).contains(&t.len()) && t.chars().all(|c| c.is_ascii_alphanumeric()) {
        Ok(t.to_string())
    } else {
        Err("use a symbol of 1 to 12 letters or digits, or a market id".into())
    }
}

/// The terminal's link for a ticket: `margin` in wad (at most 6 decimals, as the input allows).
/// The symbol comes from the exchange, so it is form-encoded like every value.
pub fn link(symbol: &str, is_long: bool, margin: u128, leverage: u32) -> String {
    let micro = margin / (WAD / 1_000_000);
    let mut url = reqwest::Url::parse(TERMINAL_ORIGIN).expect("the terminal's origin is a URL");
    url.query_pairs_mut()
        .append_pair("market", symbol)
        .append_pair("side", if is_long { "long" } else { "short" })
        .append_pair("margin", &format_scaled(micro, 6))
        .append_pair("leverage", &leverage.to_string());
    url.into()
}

/// The command that opens `link` here: the live terminal UI, or the practice one.
pub fn open_command(link: &str, practice: bool) -> String {
    // Form encoding leaves no quote in a link `link` wrote; single quotes keep `&` from the shell.
    if practice {
        format!("papertrade-tui demo --link '{link}'")
    } else {
        format!("papertrade-tui --link '{link}'")
    }
}

/// The `open` command for a ticket. The symbol comes from the exchange: it goes on a command
/// line only when it is a plain symbol (`market_text`'s rule), else the market's id does.
pub fn open_command_for(
    symbol: &str,
    market_id: u32,
    is_long: bool,
    margin: u128,
    leverage: u32,
) -> String {
    let market = match market_text(symbol) {
        Ok(plain) if plain == symbol => symbol.to_string(),
        _ => market_id.to_string(),
    };
    let micro = margin / (WAD / 1_000_000);
    format!(
        "papertrade-tui open --market {market} --side {} --margin {} --leverage {leverage}",
        if is_long { "long" } else { "short" },
        format_scaled(micro, 6)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_reads_back_what_it_was_built_from() {
        let built = link("BTC", false, 12_500_000 * (WAD / 1_000_000), 25);
        assert_eq!(
            built,
            "https://papertrade-terminal.pages.dev/?market=BTC&side=short&margin=12.5&leverage=25"
        );
        let (t, notes) = parse(&built).unwrap();
        assert!(notes.is_empty());
        assert_eq!(t.market.as_deref(), Some("BTC"));
        assert_eq!(t.side.as_deref(), Some("short"));
        assert_eq!(t.margin.as_deref(), Some("12.5"));
        assert_eq!(t.leverage.as_deref(), Some("25"));
    }

    #[test]
    fn the_app_route_a_bare_query_and_encoded_values_are_read() {
        let (t, _) = parse("https://x.pages.dev/app/?embed=1&margin=1%2C250.5&watch=0xab").unwrap();
        assert_eq!(t.margin.as_deref(), Some("1,250.5"));
        assert_eq!(t.market, None);
        let (t, _) = parse("?side=LONG").unwrap();
        assert_eq!(t.side.as_deref(), Some("LONG"));
    }

    #[test]
    fn a_parameter_given_twice_is_dropped_with_one_note() {
        let (t, notes) = parse("?market=BTC&side=long&side=short&side=long").unwrap();
        assert_eq!(t.side, None);
        assert_eq!(t.market.as_deref(), Some("BTC"));
        assert_eq!(notes, ["side dropped: the link gives it more than once"]);
    }

    #[test]
    fn what_is_not_a_ticket_link_is_refused() {
        for bad in [
            "",
            "not a link",
            "ftp://papertrade-terminal.pages.dev/?market=BTC",
            "https://papertrade-terminal.pages.dev/?embed=1",
            &format!("?market=BTC&x={}", "a".repeat(MAX_LINK_CHARS)),
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn market_text_takes_symbols_and_ids_only() {
        assert_eq!(market_text(" eth ").unwrap(), "eth");
        assert_eq!(market_text("1").unwrap(), "1");
        for bad in ["", "BTC-PERP", "ABCDEFGHIJKLM", "B C"] {
            assert!(market_text(bad).is_err(), "{bad:?}");
        }
    }
}
