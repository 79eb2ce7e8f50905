//! The candle chart: one column a candle, a price axis on the right, the live mark, and the
//! entry and bust lines of the account's positions in that market. Up and down candles differ in
//! shape (█ / ▒) as well as colour, so it reads without colour too.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use std::time::SystemTime;

use crate::app::App;
use crate::app::freshness::STALE_AFTER;
use crate::app::state::CANDLE_REFRESH;
use crate::config::keys::Command;
use crate::events::market::Source;
use crate::protocol::math::price_raw_from_text;
use crate::protocol::units::price_display;

use super::theme::Theme;

const AXIS: u16 = 11;

struct Bar {
    /// Open time, unix ms.
    t: u64,
    o: u64,
    h: u64,
    l: u64,
    c: u64,
}

/// A price named on the axis.
struct Label {
    price: u64,
    text: String,
    style: ratatui::style::Style,
    /// Drawn across the plot at the price's row.
    fill: Option<&'static str>,
}

/// The row of each label (`wants`: price and wished row, most important first) on an axis of
/// `rows`, or `None` where it cannot go. The axis reads in price order, top to bottom, whatever
/// collides: the most important label (the mark) takes its own row; those of a higher price go
/// above it, the others below, each as near its own row as the order allows, pushed apart where
/// they collide; when a side runs out of rows its least important label is dropped. A mark, a
/// bust and an entry close together all stay readable, and an entry just below the mark is never
/// drawn above it.
fn place_labels(wants: &[(u64, usize)], rows: usize) -> Vec<Option<usize>> {
    let mut kept: Vec<bool> = vec![true; wants.len()];
    loop {
        match assign(wants, &kept, rows) {
            Ok(placed) => return placed,
            Err(least) => kept[least] = false,
        }
    }
}

/// One try of [`place_labels`] with the `kept` labels; `Err` names the label to drop.
fn assign(wants: &[(u64, usize)], kept: &[bool], rows: usize) -> Result<Vec<Option<usize>>, usize> {
    let mut placed = vec![None; wants.len()];
    let Some(anchor) = kept.iter().position(|k| *k) else {
        return Ok(placed);
    };
    let (anchor_price, anchor_row) = wants[anchor];
    let anchor_row = anchor_row.min(rows.saturating_sub(1)) as i64;
    placed[anchor] = Some(anchor_row as usize);
    let rows = rows as i64;
    // Each side top to bottom (highest price first).
    let side = |above: bool| {
        let mut ids: Vec<usize> = (0..wants.len())
            .filter(|i| kept[*i] && *i != anchor && (wants[*i].0 > anchor_price) == above)
            .collect();
        ids.sort_by_key(|i| (std::cmp::Reverse(wants[*i].0), *i));
        ids
    };
    let wish = |i: usize| wants[i].1 as i64;
    // Above: pushed down from the top where they collide, then up from the anchor.
    let above = side(true);
    let mut at: Vec<i64> = Vec::with_capacity(above.len());
    let mut prev = -1;
    for &i in &above {
        prev = wish(i).max(prev + 1);
        at.push(prev);
    }
    let mut next = anchor_row;
    for r in at.iter_mut().rev() {
        *r = (*r).min(next - 1);
        next = *r;
    }
    if at.first().is_some_and(|r| *r < 0) {
        return Err(*above.iter().max().expect("a label above"));
    }
    for (i, r) in above.iter().zip(at) {
        placed[*i] = Some(r as usize);
    }
    // Below: pushed up from the bottom where they collide, then down from the anchor.
    let below = side(false);
    let mut at: Vec<i64> = vec![0; below.len()];
    let mut prev = rows;
    for (k, &i) in below.iter().enumerate().rev() {
        prev = wish(i).min(prev - 1);
        at[k] = prev;
    }
    let mut prev = anchor_row;
    for r in at.iter_mut() {
        *r = (*r).max(prev + 1);
        prev = *r;
    }
    if at.last().is_some_and(|r| *r >= rows) {
        return Err(*below.iter().max().expect("a label below"));
    }
    for (i, r) in below.iter().zip(at) {
        placed[*i] = Some(r as usize);
    }
    Ok(placed)
}

pub fn draw_chart(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let Some((market, mark)) = app.ticket_market() else {
        return;
    };
    // The mark's line and the candles, each stale past its own limit (candles are refetched
    // every `CANDLE_REFRESH`).
    let stale = super::stale_text(
        app,
        &[
            (Source::Mark(market.id), STALE_AFTER),
            (Source::Candles, CANDLE_REFRESH + STALE_AFTER),
        ],
        now,
    );
    let title = format!(
        " {} {}{stale} ({}: interval) ",
        market.symbol,
        app.chart_interval,
        app.keymap.key_of(Command::Chart)
    );
    let block = super::pane_block(title, !stale.is_empty(), theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let bars: Vec<Bar> = match &app.candles {
        Some((id, interval, candles)) if *id == market.id && *interval == app.chart_interval => {
            candles
                .iter()
                .filter_map(|c| {
                    let p = |t: &str| price_raw_from_text(t, market.price_scale).ok();
                    Some(Bar {
                        t: c.t,
                        o: p(&c.o)?,
                        h: p(&c.h)?,
                        l: p(&c.l)?,
                        c: p(&c.c)?,
                    })
                })
                .collect()
        }
        _ => Vec::new(),
    };
    if bars.is_empty() || inner.width <= AXIS + 2 || inner.height < 5 {
        frame.render_widget(Paragraph::new("loading candles…").style(theme.dim()), inner);
        return;
    }
    let plot_w = (inner.width - AXIS) as usize;
    let shown = &bars[bars.len().saturating_sub(plot_w)..];
    let mut lo = shown.iter().map(|b| b.l).min().unwrap_or(0);
    let mut hi = shown.iter().map(|b| b.h).max().unwrap_or(0);
    if let Some(m) = mark {
        lo = lo.min(m);
        hi = hi.max(m);
    }
    // Position lines widen the range only when they are near it, so a far bust (at low
    // leverage) does not flatten the candles; one outside stays on the axis, at the edge it lies
    // beyond, with an arrow.
    let span = hi.saturating_sub(lo).max(1);
    let mut lines: Vec<(u64, &str)> = Vec::new();
    for p in app
        .positions()
        .iter()
        .filter(|p| p.instrument_id == market.id)
    {
        for (price, label) in [(p.entry_price, "E"), (p.bust_price, "B")] {
            if price + span >= lo && price <= hi + span {
                lo = lo.min(price);
                hi = hi.max(price);
            }
            lines.push((price, label));
        }
    }
    // The last row is the time axis.
    let rows = u64::from(inner.height - 1);
    let range = hi.saturating_sub(lo).max(1);
    let row_of = |p: u64| -> Option<u16> {
        (lo..=hi)
            .contains(&p)
            .then(|| ((hi - p) * (rows - 1) / range) as u16)
    };
    let buf = frame.buffer_mut();
    let x0 = inner.x;
    let y0 = inner.y;
    for (i, b) in shown.iter().enumerate() {
        let x = x0 + i as u16;
        let up = b.c >= b.o;
        let style = if up { theme.gain() } else { theme.loss() };
        let (Some(top), Some(bottom)) = (row_of(b.h), row_of(b.l)) else {
            continue;
        };
        for y in top..=bottom {
            buf[(x, y0 + y)].set_symbol("│").set_style(style);
        }
        let (Some(bt), Some(bb)) = (row_of(b.o.max(b.c)), row_of(b.o.min(b.c))) else {
            continue;
        };
        for y in bt..=bb {
            buf[(x, y0 + y)]
                .set_symbol(if up { "█" } else { "▒" })
                .set_style(style);
        }
    }
    let axis_x = x0 + plot_w as u16;
    // Every axis label, most important first: the mark, busts, entries, then the range's edges
    // (unless a line already names that price).
    let mut labels: Vec<Label> = Vec::new();
    if let Some(m) = mark {
        labels.push(Label {
            price: m,
            text: format!("▶{}", price_display(m, market.price_scale)),
            style: theme.badge(),
            fill: Some("┄"),
        });
    }
    for what in ["B", "E"] {
        for (price, _) in lines.iter().filter(|(_, w)| *w == what) {
            labels.push(Label {
                price: *price,
                text: format!("{what}{}", price_display(*price, market.price_scale)),
                style: if what == "B" {
                    theme.loss()
                } else {
                    theme.dim()
                },
                fill: Some("·"),
            });
        }
    }
    let named: Vec<u64> = lines.iter().map(|(p, _)| *p).chain(mark).collect();
    for edge in [hi, lo].into_iter().filter(|e| !named.contains(e)) {
        labels.push(Label {
            price: edge,
            text: format!(" {}", price_display(edge, market.price_scale)),
            style: theme.dim(),
            fill: None,
        });
    }
    // Lines first (a fill across the plot at the price's row), then the labels where
    // `place_labels` puts them.
    for l in &labels {
        if let (Some(fill), Some(y)) = (l.fill, row_of(l.price)) {
            for x in x0..axis_x {
                if buf[(x, y0 + y)].symbol() == " " {
                    buf[(x, y0 + y)].set_symbol(fill).set_style(l.style);
                }
            }
        }
    }
    // Beyond the range: on the edge it lies past, with an arrow.
    let wanted = |l: &Label| match row_of(l.price) {
        Some(y) => usize::from(y),
        None if l.price > hi => 0,
        None => rows as usize - 1,
    };
    let wants: Vec<(u64, usize)> = labels.iter().map(|l| (l.price, wanted(l))).collect();
    for (l, row) in labels.iter().zip(place_labels(&wants, rows as usize)) {
        let Some(row) = row else { continue };
        let text = match row_of(l.price) {
            Some(_) => l.text.clone(),
            None if l.price > hi => format!("{}↑", l.text.trim_end()),
            None => format!("{}↓", l.text.trim_end()),
        };
        buf.set_stringn(axis_x, y0 + row as u16, text, AXIS as usize, l.style);
    }
    let times: Vec<u64> = shown.iter().map(|b| b.t).collect();
    draw_time_axis(frame, inner, &times, plot_w, theme);
}

/// The bottom row: the time (UTC) of the first, middle and last candle under them.
fn draw_time_axis(frame: &mut Frame, inner: Rect, times: &[u64], plot_w: usize, theme: &Theme) {
    let Some(&last) = times.last() else { return };
    let y = inner.y + inner.height - 1;
    let text = |ms: u64| {
        let s = ms / 1000 % 86_400;
        format!("{:02}:{:02}", s / 3600, s % 3600 / 60)
    };
    let buf = frame.buffer_mut();
    let n = times.len();
    let mut marks = vec![(0usize, times[0]), (n / 2, times[n / 2]), (n - 1, last)];
    marks.dedup_by_key(|(i, _)| *i);
    for (i, ms) in marks {
        // Keep each label inside the plot: the last one ends at its candle.
        let x = i.min(plot_w.saturating_sub(5)) as u16;
        buf.set_stringn(inner.x + x, y, text(ms), 5, theme.dim());
    }
    buf.set_stringn(
        inner.x + plot_w as u16,
        y,
        " UTC",
        (inner.width as usize).saturating_sub(plot_w),
        theme.dim(),
    );
}

#[cfg(test)]
mod tests {
    use super::place_labels;

    /// The mark, then an entry and a bust wishing for the mark's row: the entry below the mark
    /// goes under it, not over; a label with no row left in its place is dropped.
    #[test]
    fn labels_keep_price_order_moving_or_dropping_what_collides() {
        // Mark 100 at row 2; entry 99 and bust 98 both at row 2 too; an edge 97 at row 3.
        let wants = [(100, 2), (98, 2), (99, 2), (97, 3)];
        assert_eq!(
            place_labels(&wants, 5),
            [Some(2), Some(4), Some(3), None],
            "the bust below the entry, the edge dropped"
        );
        // An entry above the mark at the mark's row goes over it.
        assert_eq!(place_labels(&[(100, 2), (101, 2)], 5), [Some(2), Some(1)]);
        // Nowhere left below the mark: dropped, never put above it.
        assert_eq!(place_labels(&[(100, 4), (99, 4)], 5), [Some(4), None]);
    }
}
