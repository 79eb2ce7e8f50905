//! The panes, one file each, and the one table from a tab (or an open overlay) to its pane. A
//! new tab is its pane file here, its draw file in `ui/`, a `Tab` variant and a line in `of`.

mod explorer;
mod fund;
mod history;
mod leaders;
mod liquidations;
mod overlays;
mod positions;
mod protocol;
mod trade;

use std::time::SystemTime;

use super::pane::{Hint, Pane};
use super::state::App;
use super::tab::Tab;
use crate::config::keys::Command;

/// The pane a tab shows.
pub(crate) fn of(tab: Tab) -> &'static dyn Pane {
    match tab {
        Tab::Trade => &trade::Trade,
        Tab::Positions => &positions::Positions,
        Tab::History => &history::History,
        Tab::Protocol => &protocol::Protocol,
        Tab::Leaders => &leaders::Leaders,
        Tab::Explorer => &explorer::Explorer,
        Tab::Liquidations => &liquidations::Liquidations,
        Tab::Fund => &fund::Fund,
    }
}

/// The overlay on top, if one is open: one slot, one order of precedence.
pub(crate) fn overlay(app: &App) -> Option<&'static dyn Pane> {
    if app.dialog.is_some() {
        Some(&overlays::Dialog)
    } else if app.key_panel.is_some() {
        Some(&overlays::KeyPanel)
    } else if app.help {
        Some(&overlays::Help)
    } else if app.show_log {
        Some(&overlays::Log)
    } else {
        None
    }
}

impl App {
    /// Apply a key's action; the effects the runtime must carry out (signing, quitting). Quit
    /// works everywhere; everything else goes to the focused pane (`App::focused`, the one
    /// place that decides it), and what the pane leaves is a command that works anywhere.
    pub(crate) fn update(&mut self, action: super::action::Action) -> Vec<super::message::Effect> {
        use super::action::Action;
        use super::message::Effect;
        use super::pane::Handled;
        self.dirty = true;
        let pane = self.focused();
        let action = match action {
            Action::Key(key) => match pane.translate(self, key) {
                Some(action) => action,
                None => return Vec::new(),
            },
            action => action,
        };
        if action == Action::Quit {
            return vec![Effect::Quit];
        }
        match pane.update(self, &action) {
            Handled::Consumed(effects) => effects,
            Handled::Ignored => self.anywhere(action),
        }
    }

    /// What has the keyboard now: the overlay on top (one order: the confirm dialog, the key
    /// panel, the help, the message log), else the tab's pane. The one place that decides it.
    pub(crate) fn focused(&self) -> &'static dyn Pane {
        overlay(self).unwrap_or_else(|| of(self.tab))
    }

    /// What the keys do now: the focused pane's commands, and the ones that work anywhere
    /// while no overlay is open and no field takes text. The hint bar shows exactly this.
    pub(crate) fn hints(&self, now: SystemTime) -> Vec<Hint> {
        match overlay(self) {
            Some(overlay) => overlay.commands(self, now),
            None => self.pane_hints(now),
        }
    }

    /// The tab's pane's hints, under any overlay (the help's first line).
    pub(crate) fn pane_hints(&self, now: SystemTime) -> Vec<Hint> {
        let pane = of(self.tab);
        let mut out = pane.commands(self, now);
        if !pane.takes_text(self) {
            out.extend([
                Hint::fixed(&format!("1-{}", Tab::LAST_DIGIT), "tabs"),
                Hint::command(self, Command::Help, "help"),
                Hint::command(self, Command::Quit, "quit"),
            ]);
        }
        out
    }
}
