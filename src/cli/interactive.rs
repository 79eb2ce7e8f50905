//! Opening the terminal UI: live (the owner's session key), `--watch` (read-only, no key
//! material), and the prefill flags.

use std::io::IsTerminal;

use clap::Args;

use crate::app::key_setup::KeySetup;
use crate::app::{App, KeyStatus, Mode};
use crate::keys::{Backend, KeyError, KeyMeta, Passphrase};
use crate::protocol::eip712::SessionSigner;
use crate::tui::Setup;
use crate::ui::theme::Theme;

use super::output::CliError;
use super::session::{key_error, owner, passphrase, session_keys};
use super::{Context, args};

/// Prefill the UI's ticket, like the browser terminal's deep links: invalid values are
/// dropped one by one with a note; nothing is signed until confirmed.
#[derive(Debug, Args, Default)]
pub struct PrefillArgs {
    #[arg(long = "market", value_name = "SYMBOL")]
    pub market: Option<String>,
    #[arg(long = "side", value_name = "long|short")]
    pub side: Option<String>,
    #[arg(long = "margin", value_name = "USD")]
    pub margin: Option<String>,
    #[arg(long = "leverage", value_name = "N")]
    pub leverage: Option<String>,
    /// A browser terminal link (`…/?market=BTC&side=long&margin=50&leverage=10`, as
    /// `build_trade_plan` returns): its values prefill the ticket under a review banner.
    #[arg(long = "link", value_name = "URL", conflicts_with_all = ["market", "side", "margin", "leverage"])]
    pub link: Option<String>,
}

impl PrefillArgs {
    pub(crate) fn is_given(&self) -> bool {
        self.link.is_some()
            || self.market.is_some()
            || self.side.is_some()
            || self.margin.is_some()
            || self.leverage.is_some()
    }

    /// The ticket these flags or this link fill, the notes of what a link dropped, and where
    /// it came from; `None` when nothing is prefilled. An unreadable link is bad input.
    pub fn ticket(
        &self,
    ) -> Result<
        Option<(
            crate::answers::deep_link::LinkTicket,
            Vec<String>,
            crate::app::Prefilled,
        )>,
        CliError,
    > {
        if let Some(link) = &self.link {
            let (ticket, notes) = crate::answers::deep_link::parse(link)?;
            return Ok(Some((ticket, notes, crate::app::Prefilled::Link)));
        }
        let ticket = crate::answers::deep_link::LinkTicket {
            market: self.market.clone(),
            side: self.side.clone(),
            margin: self.margin.clone(),
            leverage: self.leverage.clone(),
        };
        Ok((!ticket.is_empty()).then_some((ticket, Vec::new(), crate::app::Prefilled::Flags)))
    }
}

#[derive(Debug, Args)]
pub(crate) struct OpenLinkArgs {
    /// The browser terminal link, such as https://papertrade-terminal.pages.dev/?market=BTC&side=long&margin=50&leverage=10
    #[arg(value_name = "URL")]
    pub url: String,
}

/// `open-link URL`: the terminal UI with the link's ticket prefilled, as `--link URL`.
pub(crate) async fn open_link(ctx: &Context, a: OpenLinkArgs) -> Result<(), CliError> {
    let prefill = PrefillArgs {
        link: Some(a.url),
        ..PrefillArgs::default()
    };
    run(ctx, &prefill).await
}

pub async fn run(ctx: &Context, prefill: &PrefillArgs) -> Result<(), CliError> {
    // A link that cannot be read is bad input: said before any passphrase is asked.
    prefill.ticket()?;
    if !std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "the terminal UI needs a terminal; for scripts use the commands (see --help)".into(),
        ));
    }
    launch(prepare(ctx, prefill).await?).await
}

/// The UI the command line asks for: watching (no key material) or live (the owner's usable
/// session key). Public so tests open the UI the way the command line does.
pub async fn prepare(ctx: &Context, prefill: &PrefillArgs) -> Result<Setup, CliError> {
    let (mode, wallet, session, note) = match ctx.watch {
        Some(w) => (Mode::Watch, w, None, None),
        None => {
            let owner = owner(ctx)?;
            let (session, note) = stored_session_key(ctx, owner)?;
            (Mode::Live, owner, session, note)
        }
    };
    // No read of the exchange here: the UI draws at once and the poller brings the markets.
    let mut setup = setup(ctx, mode, wallet, session, prefill)?;
    if let Some(note) = note {
        setup.app.toast(note, true);
    }
    Ok(setup)
}

/// A session key ready to sign, and what the UI shows of it.
type Unlocked = (SessionSigner, KeyMeta);

/// The owner's stored session key, unlocked (its passphrase asked on the plain terminal, before
/// the UI takes it over), whatever the exchange thinks of it: the UI follows `sessionKeys` and
/// its key panel registers, renews or replaces it. No key, or a key whose secret is gone, opens
/// the UI with trading not enabled (and a note saying why).
fn stored_session_key(
    ctx: &Context,
    owner: alloy_primitives::Address,
) -> Result<(Option<Unlocked>, Option<String>), CliError> {
    let loaded = session_keys(ctx)?.load(owner, || {
        passphrase(crate::keys::PASSPHRASE_ENV, "Session key passphrase: ")
    });
    match loaded {
        Ok(session) => Ok((session, None)),
        Err(KeyError::NotFound) => Ok((None, Some(format!("{}", KeyError::NotFound)))),
        Err(e) => Err(key_error(e)),
    }
}

/// Hand the terminal to the UI until the user quits or the process is told to stop.
pub(crate) async fn launch(setup: Setup) -> Result<(), CliError> {
    crate::tui::run(setup, super::signal::stop_signal())
        .await
        .map_err(|e| CliError::Local(format!("terminal: {e}")))
}

/// What the UI starts from: the app (keymap, key status, prefilled ticket) and its settings.
/// Public so the tests drive the UI from the very setup the CLI builds.
pub fn setup(
    ctx: &Context,
    mode: Mode,
    wallet: alloy_primitives::Address,
    session: Option<(SessionSigner, KeyMeta)>,
    prefill: &PrefillArgs,
) -> Result<Setup, CliError> {
    let mut app = App::new(mode, Some(wallet));
    app.max_mark_age = ctx.ui.max_mark_age();
    // Validated when the config was read; a failure here would be a bug, so fall back loudly.
    app.keymap =
        crate::config::keys::Keymap::with_overrides(&ctx.ui.keys).map_err(CliError::Config)?;
    app.key = session.as_ref().map(|(_, meta)| KeyStatus::from(meta));
    // Watch mode has no key store at all: no key material may exist in the process.
    let keys = match mode {
        Mode::Watch => None,
        Mode::Live | Mode::Demo => Some(session_keys(ctx)?),
    };
    app.key_setup = KeySetup {
        available: keys.is_some(),
        new_key_needs_passphrase: keys.as_ref().is_some_and(|k| {
            k.preferred_backend() == Backend::Keystore
                && Passphrase::from_env(crate::keys::PASSPHRASE_ENV).is_none()
        }),
    };
    app.alerts = ctx.alerts.rules().map(crate::app::alerts::Alerts::new);
    app.delivery = ctx.alerts.delivery(crate::ui::notify::detect_here);
    apply_prefill(&mut app, prefill)?;
    Ok(Setup {
        app,
        http: ctx.http.clone(),
        session,
        data_dir: ctx.data_dir.clone(),
        theme: Theme::from_env(ctx.ui.light()),
        rates: ctx.rates,
        max_fps: ctx.ui.max_fps(),
        mouse: ctx.ui.mouse,
        deadlines: ctx.deadlines,
        keys,
    })
}

/// Fill the ticket from the flags or a link; each invalid value is dropped with a note, the
/// market is looked up and the leverage clamped when the first markets arrive
/// (`App::resolve_prefill`), and the ticket stays under its review banner until confirmed.
fn apply_prefill(app: &mut App, p: &PrefillArgs) -> Result<(), CliError> {
    let Some((ticket, mut notes, from)) = p.ticket()? else {
        return Ok(());
    };
    let mut market = None;
    if let Some(m) = &ticket.market {
        match crate::answers::deep_link::market_text(m) {
            Ok(m) => market = Some(m),
            Err(e) => notes.push(format!("market dropped: {e}")),
        }
    }
    if let Some(s) = &ticket.side {
        match args::side(s) {
            Ok(long) => app.ticket.is_long = long,
            Err(_) => notes.push("side dropped: use long or short".to_string()),
        }
    }
    if let Some(m) = &ticket.margin {
        match args::margin(m) {
            Ok(_) => {
                app.ticket.margin_text = m.trim().replace(',', "");
                app.ticket.defaults = false;
            }
            Err(e) => notes.push(format!("margin dropped: {e}")),
        }
    }
    if let Some(l) = &ticket.leverage {
        match args::leverage(l) {
            Ok(l) => app.ticket.leverage = l,
            Err(e) => notes.push(format!("leverage dropped: {e}")),
        }
    }
    // Kept until Esc: the UI's clock has not started yet, and the trader must see each one.
    for n in notes {
        app.note(crate::text::sanitize_line(&n, 160));
    }
    app.prefill = Some(crate::app::PendingPrefill { market });
    app.ticket.review = Some(from);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::trading::TradingState;

    fn arrive(app: &mut App) {
        let state =
            TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
        app.on_market(crate::events::market::MarketEvent::Trading(
            Box::new(state),
            std::time::SystemTime::UNIX_EPOCH,
        ));
    }

    fn notes(app: &App) -> Vec<&str> {
        app.toasts.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn prefill_keeps_the_valid_values_and_drops_each_invalid_one_with_a_note() {
        let mut app = App::new(Mode::Demo, None);
        let prefill = PrefillArgs {
            market: Some("eth".into()),
            side: Some("sideways".into()),
            margin: Some("1,250.5".into()),
            leverage: Some("5000".into()),
            link: None,
        };
        apply_prefill(&mut app, &prefill).unwrap();
        arrive(&mut app);
        assert_eq!(app.ticket.market, 1);
        assert!(app.ticket.is_long, "an invalid side leaves the default");
        assert_eq!(app.ticket.margin_text, "1250.5");
        assert_eq!(
            app.ticket.leverage, 10,
            "an invalid leverage leaves the default"
        );
        let notes = notes(&app);
        assert!(notes.iter().any(|n| n.starts_with("side dropped")));
        assert!(notes.iter().any(|n| n.starts_with("leverage dropped")));
        assert_eq!(app.ticket.review, Some(crate::app::Prefilled::Flags));
        assert!(app.dialog.is_none());
    }

    #[test]
    fn a_link_prefills_what_it_can_under_the_review_banner() {
        let mut app = App::new(Mode::Demo, None);
        let prefill = PrefillArgs {
            link: Some(
                "https://papertrade-terminal.pages.dev/?market=BTC-PERP&side=Short&margin=0&leverage=250&leverage=3"
                    .into(),
            ),
            ..PrefillArgs::default()
        };
        apply_prefill(&mut app, &prefill).unwrap();
        arrive(&mut app);
        assert_eq!(app.ticket.market, 0, "the bad market leaves the default");
        assert!(!app.ticket.is_long, "side is case-insensitive");
        assert_eq!(app.ticket.leverage, 10, "a leverage given twice is dropped");
        assert!(app.ticket.defaults, "a zero margin is dropped");
        assert_eq!(
            notes(&app),
            [
                "leverage dropped: the link gives it more than once",
                "market dropped: use a symbol of 1 to 12 letters or digits, or a market id",
                "margin dropped: --margin: must be more than $0",
            ]
        );
        assert_eq!(app.ticket.review, Some(crate::app::Prefilled::Link));
        assert!(
            app.dialog.is_none(),
            "nothing is reviewed, let alone signed"
        );
    }

    #[test]
    fn a_decimal_comma_in_a_link_margin_is_dropped_not_read_as_thousands() {
        let mut app = App::new(Mode::Demo, None);
        let prefill = PrefillArgs {
            link: Some("https://papertrade-terminal.pages.dev/?market=BTC&margin=0,5".into()),
            ..PrefillArgs::default()
        };
        apply_prefill(&mut app, &prefill).unwrap();
        assert_eq!(
            app.ticket.margin_text, "100",
            "not $5, not $0.5: the default"
        );
        let notes = notes(&app);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with(
                "margin dropped: --margin: has a comma that does not separate thousands"
            ),
            "{notes:?}"
        );
    }

    #[test]
    fn an_unreadable_link_is_bad_input_and_fills_nothing() {
        let mut app = App::new(Mode::Demo, None);
        let prefill = PrefillArgs {
            link: Some("papertrade-terminal.pages.dev market=BTC".into()),
            ..PrefillArgs::default()
        };
        let e = apply_prefill(&mut app, &prefill).unwrap_err();
        assert!(e.to_string().contains("is not a link"), "{e}");
        assert_eq!(app.ticket, App::new(Mode::Demo, None).ticket);
        assert!(app.prefill.is_none());
    }
}
