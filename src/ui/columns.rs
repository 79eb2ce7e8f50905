//! Table columns that give way on a narrow terminal: each has a width and how much it matters,
//! and the least important go first until the rest fit.

/// A column of a table and how much it matters when the terminal is narrow.
pub(super) struct Column {
    pub title: &'static str,
    pub width: u16,
    /// Higher stays longer; 10 and above always stay.
    pub keep: u8,
}

impl Column {
    pub(super) const fn new(title: &'static str, width: u16, keep: u8) -> Self {
        Self { title, width, keep }
    }
}

/// Which of `columns` fit in `width` (one space between columns), dropping the least important
/// first.
pub(super) fn fit(columns: &[Column], width: u16) -> Vec<bool> {
    let sized: Vec<(usize, u8)> = columns
        .iter()
        .map(|c| (usize::from(c.width), c.keep))
        .collect();
    fit_widths(&sized, usize::from(width), 1)
}

/// The one way a table gives way to a narrow terminal, the UI's and the CLI's: of columns
/// `(width, keep)` with `gap` between them, drop the least important (lowest `keep`; 10 and
/// above always stay) until the rest fit in `width`.
pub(crate) fn fit_widths(columns: &[(usize, u8)], width: usize, gap: usize) -> Vec<bool> {
    let mut keep = vec![true; columns.len()];
    let used = |keep: &[bool]| -> usize {
        let (sum, n) = columns
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .fold((0usize, 0usize), |(s, n), ((w, _), _)| (s + w, n + 1));
        sum + gap * n.saturating_sub(1)
    };
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by_key(|&i| columns[i].1);
    for i in order {
        if used(&keep) <= width || columns[i].1 >= 10 {
            continue;
        }
        keep[i] = false;
    }
    keep
}

/// The cells of the columns that stay, in order.
pub(super) fn kept<T>(cells: impl IntoIterator<Item = T>, shown: &[bool]) -> Vec<T> {
    cells
        .into_iter()
        .zip(shown)
        .filter(|(_, keep)| **keep)
        .map(|(cell, _)| cell)
        .collect()
}

/// The widths and header titles of the columns that stay.
pub(super) fn layout(
    columns: &[Column],
    shown: &[bool],
) -> (Vec<ratatui::layout::Constraint>, Vec<&'static str>) {
    let picked = || columns.iter().zip(shown).filter(|(_, keep)| **keep);
    (
        picked()
            .map(|(c, _)| ratatui::layout::Constraint::Length(c.width))
            .collect(),
        picked().map(|(c, _)| c.title).collect(),
    )
}
