//! The real terminal's backend: each frame that changes a cell is wrapped in synchronized output
//! (`ESC[?2026h … ESC[?2026l`) so the terminal never shows half of one, and a frame that changes
//! nothing writes nothing at all — not the markers, not the colour reset, not the cursor
//! hiding ratatui repeats after every frame. Idle costs no bytes.

use std::io::{self, Write};

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::crossterm::queue;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::layout::{Position, Size};

/// A backend that writes only what changes: `inner` does the writing into its own stream
/// (which `Write` reaches, so the markers land in the same bytes as the frame).
pub(crate) struct Frames<B> {
    inner: B,
    /// The synchronized update is open: something of this frame was written.
    writing: bool,
    /// What the terminal's cursor is known to be (`None`: not known yet, so say it once).
    cursor_hidden: Option<bool>,
}

impl<B: Backend<Error = io::Error> + Write> Frames<B> {
    pub(crate) fn new(inner: B) -> Self {
        Self {
            inner,
            writing: false,
            cursor_hidden: None,
        }
    }

    /// Open the synchronized update before the first byte of a frame.
    fn begin(&mut self) -> io::Result<()> {
        if !self.writing {
            queue!(self.inner, BeginSynchronizedUpdate)?;
            self.writing = true;
        }
        Ok(())
    }
}

impl<B: Backend<Error = io::Error> + Write> Backend for Frames<B> {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let mut content = content.peekable();
        if content.peek().is_none() {
            return Ok(());
        }
        self.begin()?;
        self.inner.draw(content)
    }

    fn append_lines(&mut self, n: u16) -> io::Result<()> {
        self.begin()?;
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> io::Result<()> {
        if self.cursor_hidden == Some(true) {
            return Ok(());
        }
        self.begin()?;
        self.cursor_hidden = Some(true);
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> io::Result<()> {
        if self.cursor_hidden == Some(false) {
            return Ok(());
        }
        self.begin()?;
        self.cursor_hidden = Some(false);
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> io::Result<Position> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.begin()?;
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> io::Result<()> {
        self.begin()?;
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.begin()?;
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> io::Result<Size> {
        self.inner.size()
    }

    fn window_size(&mut self) -> io::Result<WindowSize> {
        self.inner.window_size()
    }

    /// The end of a frame: close the synchronized update if one was opened, then flush.
    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.writing) {
            queue!(self.inner, EndSynchronizedUpdate)?;
        }
        Backend::flush(&mut self.inner)
    }
}

impl<B: Write> Write for Frames<B> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Write::flush(&mut self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::CrosstermBackend;
    use ratatui::widgets::Paragraph;

    /// Bytes written, shared with the test that reads them.
    #[derive(Clone, Default)]
    struct Bytes(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Bytes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A crossterm backend writing into memory, on a screen of a known size (the real one asks
    /// the terminal).
    struct Memory(CrosstermBackend<Bytes>);

    impl Write for Memory {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Write::flush(&mut self.0)
        }
    }

    impl Backend for Memory {
        type Error = io::Error;
        fn draw<'a, I: Iterator<Item = (u16, u16, &'a Cell)>>(&mut self, c: I) -> io::Result<()> {
            self.0.draw(c)
        }
        fn hide_cursor(&mut self) -> io::Result<()> {
            self.0.hide_cursor()
        }
        fn show_cursor(&mut self) -> io::Result<()> {
            self.0.show_cursor()
        }
        fn get_cursor_position(&mut self) -> io::Result<Position> {
            Ok(Position::ORIGIN)
        }
        fn set_cursor_position<P: Into<Position>>(&mut self, p: P) -> io::Result<()> {
            self.0.set_cursor_position(p)
        }
        fn clear(&mut self) -> io::Result<()> {
            self.0.clear()
        }
        fn clear_region(&mut self, t: ClearType) -> io::Result<()> {
            self.0.clear_region(t)
        }
        fn size(&self) -> io::Result<Size> {
            Ok(Size::new(20, 2))
        }
        fn window_size(&mut self) -> io::Result<WindowSize> {
            Ok(WindowSize {
                columns_rows: Size::new(20, 2),
                pixels: Size::new(0, 0),
            })
        }
        fn flush(&mut self) -> io::Result<()> {
            Backend::flush(&mut self.0)
        }
    }

    fn written(bytes: &Bytes) -> Vec<u8> {
        std::mem::take(&mut bytes.0.borrow_mut())
    }

    /// A frame that changes no cell writes no byte; one that does is wrapped in synchronized
    /// output, its cursor hidden once.
    #[test]
    fn a_frame_that_changes_nothing_writes_nothing() {
        let bytes = Bytes::default();
        let backend = Frames::new(Memory(CrosstermBackend::new(bytes.clone())));
        let mut t = Terminal::new(backend).unwrap();
        let text = |s: &'static str| {
            move |f: &mut ratatui::Frame| f.render_widget(Paragraph::new(s), f.area())
        };
        t.draw(text("mark:82,700.2")).unwrap();
        let first = String::from_utf8(written(&bytes)).unwrap();
        assert!(first.starts_with("\x1b[?2026h"), "{first:?}");
        assert!(first.ends_with("\x1b[?2026l"), "{first:?}");
        assert!(first.contains("mark:82,700.2"));
        assert!(first.contains("\x1b[?25l"), "the cursor is hidden");
        for _ in 0..3 {
            t.draw(text("mark:82,700.2")).unwrap();
            assert_eq!(written(&bytes), b"", "the same frame again writes nothing");
        }
        t.draw(text("mark:82,700.3")).unwrap();
        let changed = String::from_utf8(written(&bytes)).unwrap();
        assert!(changed.starts_with("\x1b[?2026h") && changed.ends_with("\x1b[?2026l"));
        assert!(
            changed.contains('3') && !changed.contains("mark"),
            "{changed:?}"
        );
        assert!(
            !changed.contains("\x1b[?25l"),
            "the cursor is hidden already"
        );
    }
}
