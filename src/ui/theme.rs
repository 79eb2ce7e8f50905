//! Colours. Long and short are never told apart by colour alone (the text says LONG/SHORT, ▲/▼),
//! and `NO_COLOR` turns colour off entirely.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub light: bool,
}

impl Theme {
    /// Dark unless asked for light; no colour when `NO_COLOR` is set (any value, per no-color.org).
    pub(crate) fn from_env(light: bool) -> Self {
        Self {
            color: std::env::var_os("NO_COLOR").is_none(),
            light,
        }
    }

    pub fn plain() -> Self {
        Self {
            color: false,
            light: false,
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    pub(crate) fn text(&self) -> Style {
        Style::default()
    }

    pub(crate) fn dim(&self) -> Style {
        if self.color {
            self.fg(Color::DarkGray)
        } else {
            Style::default().add_modifier(Modifier::DIM)
        }
    }

    pub(crate) fn title(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    pub(crate) fn gain(&self) -> Style {
        self.fg(if self.light {
            Color::Green
        } else {
            Color::LightGreen
        })
    }

    pub(crate) fn loss(&self) -> Style {
        self.fg(if self.light {
            Color::Red
        } else {
            Color::LightRed
        })
    }

    pub(crate) fn warn(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// The near-bust banner: reversed so it reads as an alarm without colour too.
    pub(crate) fn alert(&self) -> Style {
        self.loss()
            .add_modifier(Modifier::BOLD | Modifier::REVERSED)
    }

    pub(crate) fn selected(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }

    pub(crate) fn badge(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub(crate) fn signed(&self, value: i128) -> Style {
        match value.signum() {
            1 => self.gain(),
            -1 => self.loss(),
            _ => self.text(),
        }
    }
}
