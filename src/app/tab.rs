//! The UI's tabs, in order.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Trade,
    Positions,
    History,
    Protocol,
    /// The exchange's leaderboard (any window, sort and search).
    Leaders,
    /// Any wallet, read-only: balance sheet, positions to bust, pending intents.
    Explorer,
    /// The bust map and the positions closest to bust over a scan of the largest wallets.
    Liquidations,
    /// HyperCore and Papertrade balances; deposit and withdraw with the owner's wallet.
    Fund,
}

impl Tab {
    /// Every tab in the tab bar's order; the digit keys 1… pick them by place.
    pub const ALL: [Tab; 8] = [
        Tab::Trade,
        Tab::Positions,
        Tab::History,
        Tab::Protocol,
        Tab::Leaders,
        Tab::Explorer,
        Tab::Liquidations,
        Tab::Fund,
    ];

    /// The digit that picks the last tab a digit picks: the n-th tab is on digit n, up to 9
    /// (the keys '1'..='9' are reserved for them, `config::keys::RESERVED_KEYS`).
    pub const LAST_DIGIT: char = {
        let n = if Self::ALL.len() < 9 {
            Self::ALL.len()
        } else {
            9
        };
        (b'0' + n as u8) as char
    };

    fn place(self) -> usize {
        Self::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    pub(crate) fn previous(self) -> Self {
        Self::ALL[(self.place() + Self::ALL.len() - 1) % Self::ALL.len()]
    }

    pub(crate) fn next(self) -> Self {
        Self::ALL[(self.place() + 1) % Self::ALL.len()]
    }

    /// Whether the tab shows other wallets' data (the recent-trades feed among it).
    pub(crate) fn explores(self) -> bool {
        matches!(
            self,
            Tab::Protocol | Tab::Leaders | Tab::Explorer | Tab::Liquidations
        )
    }

    /// The tab bar's label, and the short one a narrow bar uses when the tab is not chosen.
    pub(crate) fn label(self) -> (&'static str, &'static str) {
        match self {
            Tab::Trade => ("1 Trade", "1 Trade"),
            Tab::Positions => ("2 Positions", "2 Pos"),
            Tab::History => ("3 History", "3 Hist"),
            Tab::Protocol => ("4 Protocol", "4 Proto"),
            Tab::Leaders => ("5 Leaders", "5 Leaders"),
            Tab::Explorer => ("6 Explorer", "6 Explorer"),
            Tab::Liquidations => ("7 Liquidations", "7 Liq"),
            Tab::Fund => ("8 Fund", "8 Fund"),
        }
    }

    /// The tab a digit key picks (`'1'` is the first).
    pub(crate) fn of_digit(c: char) -> Option<Self> {
        let n = c.to_digit(10)? as usize;
        Self::ALL.get(n.checked_sub(1)?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_cycle_both_ways_and_digits_pick_by_place() {
        for t in Tab::ALL {
            assert_eq!(t.next().previous(), t);
        }
        // Written against the order, not the count: a tab added at the end changes no line.
        let last = Tab::ALL[Tab::ALL.len() - 1];
        assert_eq!(last.next(), Tab::Trade);
        assert_eq!(Tab::Trade.previous(), last);
        assert_eq!(Tab::of_digit('5'), Some(Tab::Leaders));
        assert_eq!(Tab::of_digit('7'), Some(Tab::Liquidations));
        assert_eq!(Tab::of_digit('8'), Some(Tab::Fund));
        assert_eq!(Tab::of_digit('0'), None);
        assert_eq!(Tab::of_digit(Tab::LAST_DIGIT), Some(last));
        if let Some(past) = char::from_digit(Tab::ALL.len() as u32 + 1, 10) {
            assert_eq!(
                Tab::of_digit(past),
                None,
                "no tab on the digit after the last"
            );
        }
    }

    /// Every digit that picks a tab is one no command may be remapped to.
    #[test]
    fn the_digits_of_every_tab_are_reserved() {
        for (n, tab) in Tab::ALL.iter().enumerate().take(9) {
            let digit = char::from_digit(n as u32 + 1, 10).unwrap();
            assert_eq!(Tab::of_digit(digit), Some(*tab));
            assert!(
                crate::config::keys::RESERVED_KEYS.contains(&digit),
                "{digit}"
            );
        }
        assert!(
            crate::config::keys::RESERVED_KEYS.contains(&'9'),
            "a ninth tab's digit"
        );
    }
}
