//! The Trade tab: the order ticket (its typed leverage and market, its margin field). The
//! ticket's commands work from any tab (`App::anywhere`); this pane takes its fields' keys.

use std::time::SystemTime;

use super::super::action::Action;
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Trade;

impl Pane for Trade {
    fn update(&self, app: &mut App, action: &Action) -> Handled {
        if let Some(typing) = app.ticket.typing.as_mut() {
            match action {
                Action::Type(c) => typing.push(*c),
                Action::Backspace => typing.pop(),
                Action::Review => app.apply_typing(),
                // Leaving a typed leverage or market changes nothing.
                Action::Escape => app.ticket.typing = None,
                _ => return Handled::Ignored,
            }
            return Handled::Consumed(Vec::new());
        }
        if app.ticket.editing_margin {
            match action {
                Action::Type(c) => app.ticket.type_char(*c),
                Action::Backspace => app.ticket.backspace(),
                _ => return Handled::Ignored,
            }
            return Handled::Consumed(Vec::new());
        }
        Handled::Ignored
    }

    fn takes_text(&self, app: &App) -> bool {
        app.ticket.editing_margin || app.ticket.typing.is_some()
    }

    /// While typing only the field's keys work; otherwise the ticket's commands.
    fn commands(&self, app: &App, now: SystemTime) -> Vec<Hint> {
        use super::super::ticket::Typing;
        match &app.ticket.typing {
            Some(Typing::Leverage(_)) => {
                return vec![
                    Hint::fixed("0-9", "leverage"),
                    Hint::fixed("⏎", "set it"),
                    Hint::fixed("Esc", "leave, unchanged"),
                ];
            }
            Some(Typing::Market(_)) => {
                return vec![
                    Hint::fixed("A-Z", "market name"),
                    Hint::fixed("⏎", "pick it"),
                    Hint::fixed("Esc", "leave, unchanged"),
                ];
            }
            None => {}
        }
        if app.ticket.editing_margin {
            return vec![
                Hint::fixed("0-9 .", "margin"),
                Hint::fixed("⏎", "review"),
                Hint::fixed("Esc", "leave the field"),
            ];
        }
        let k = |c| app.keymap.key_of(c);
        // Without a usable key the fix comes first, at the frame's time as the ticket says it.
        let now_s = crate::clock::unix_s(now);
        let key_fix = (app.mode.can_trade()
            && (app.key_gate(now_s).is_err() || app.key_needs_renewal(now_s).is_some()))
        .then(|| Hint::command(app, Command::SessionKey, "session key"));
        key_fix
            .into_iter()
            .chain([
                Hint {
                    key: format!("{}/{}", k(Command::Long), k(Command::Short)),
                    what: "side",
                },
                Hint::command(app, Command::Margin, "margin"),
                Hint::command(app, Command::UseDebt, "debt"),
                Hint {
                    key: format!("{} {}", k(Command::Market), k(Command::PickMarket)),
                    what: "mkt",
                },
                Hint {
                    key: format!(
                        "{} {} {}",
                        k(Command::LeverageDown),
                        k(Command::LeverageUp),
                        k(Command::Leverage)
                    ),
                    what: "lev",
                },
                Hint::fixed("⏎", "review"),
            ])
            .collect()
    }
}
