//! The candle chart: one column a candle, a price axis on the right, the live mark, and the
//! entry and bust lines of the account's positions in that market. Up and down candles differ in
//! shape (█ / ▒) as well as colour, so it reads without colour too.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::App;
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

pub fn draw_chart(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((market, mark)) = app.ticket_market() else {
        return;
    };
    let block = Block::default().borders(Borders::ALL).title(format!(
        " {} {} (C: interval) ",
        market.symbol, app.chart_interval
    ));
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
    // Lines first (a fill across the plot at the price's row), then the axis labels, most
    // important first; a label whose row is taken moves to the nearest free one, so the mark,
    // a bust and an entry close together are all still readable.
    let mut taken = vec![false; rows as usize];
    let mut label = |price: u64, text: String, style, fill: Option<&str>| {
        let (row, text) = match row_of(price) {
            Some(y) => (y, text),
            // Beyond the range: on the edge it lies past, with an arrow.
            None if price > hi => (0, format!("{}↑", text.trim_end())),
            None => ((rows - 1) as u16, format!("{}↓", text.trim_end())),
        };
        if let (Some(fill), Some(y)) = (fill, row_of(price)) {
            for x in x0..axis_x {
                if buf[(x, y0 + y)].symbol() == " " {
                    buf[(x, y0 + y)].set_symbol(fill).set_style(style);
                }
            }
        }
        let free = (0..rows as usize)
            .filter(|r| !taken[*r])
            .min_by_key(|r| r.abs_diff(usize::from(row)));
        if let Some(r) = free {
            taken[r] = true;
            buf.set_stringn(axis_x, y0 + r as u16, text, AXIS as usize, style);
        }
    };
    if let Some(m) = mark {
        label(
            m,
            format!("▶{}", price_display(m, market.price_scale)),
            theme.badge(),
            Some("┄"),
        );
    }
    for what in ["B", "E"] {
        for (price, _) in lines.iter().filter(|(_, w)| *w == what) {
            let style = if what == "B" {
                theme.loss()
            } else {
                theme.dim()
            };
            label(
                *price,
                format!("{what}{}", price_display(*price, market.price_scale)),
                style,
                Some("·"),
            );
        }
    }
    // The range's edges, unless a line already names that price.
    let named: Vec<u64> = lines.iter().map(|(p, _)| *p).chain(mark).collect();
    for edge in [hi, lo].into_iter().filter(|e| !named.contains(e)) {
        label(
            edge,
            format!(" {}", price_display(edge, market.price_scale)),
            theme.dim(),
            None,
        );
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
