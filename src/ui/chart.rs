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
    if bars.is_empty() || inner.width <= AXIS + 2 || inner.height < 4 {
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
    // leverage) does not flatten the candles; it is still named on the axis edge.
    let span = hi.saturating_sub(lo).max(1);
    let mut lines: Vec<(u64, &str)> = Vec::new();
    for p in app
        .positions()
        .iter()
        .filter(|p| p.instrument_id == market.id)
    {
        for (price, label) in [(p.entry_price, "entry"), (p.bust_price, "bust")] {
            if price + span >= lo && price <= hi + span {
                lo = lo.min(price);
                hi = hi.max(price);
            }
            lines.push((price, label));
        }
    }
    let rows = inner.height as u64;
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
    let mut label = |price: u64, text: String, style, fill: &str| {
        let Some(y) = row_of(price) else { return };
        for x in x0..axis_x {
            if buf[(x, y0 + y)].symbol() == " " {
                buf[(x, y0 + y)].set_symbol(fill).set_style(style);
            }
        }
        buf.set_stringn(axis_x, y0 + y, text, AXIS as usize, style);
    };
    label(
        hi,
        format!(" {}", price_display(hi, market.price_scale)),
        theme.dim(),
        " ",
    );
    label(
        lo,
        format!(" {}", price_display(lo, market.price_scale)),
        theme.dim(),
        " ",
    );
    for (price, what) in &lines {
        let style = if *what == "bust" {
            theme.loss()
        } else {
            theme.dim()
        };
        label(
            *price,
            format!(
                "{}{}",
                if *what == "bust" { "B" } else { "E" },
                price_display(*price, market.price_scale)
            ),
            style,
            "·",
        );
    }
    if let Some(m) = mark {
        label(
            m,
            format!("▶{}", price_display(m, market.price_scale)),
            theme.badge(),
            "┄",
        );
    }
}
