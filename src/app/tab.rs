//! The UI's tabs, in order.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Trade,
    Positions,
    History,
    Protocol,
}

impl Tab {
    pub(crate) fn previous(self) -> Self {
        self.next().next().next()
    }

    pub(crate) fn next(self) -> Self {
        match self {
            Tab::Trade => Tab::Positions,
            Tab::Positions => Tab::History,
            Tab::History => Tab::Protocol,
            Tab::Protocol => Tab::Trade,
        }
    }
}
