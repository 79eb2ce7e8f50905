//! How a position's side is written on screen, in one place: the arrow alone (`▲`), with its
//! letter in tables (`▲L`), or with the word on the ticket and in the confirm dialog (`▲ LONG`).

pub(crate) fn arrow(is_long: bool) -> &'static str {
    if is_long { "▲" } else { "▼" }
}

pub(crate) fn arrow_letter(is_long: bool) -> &'static str {
    if is_long { "▲L" } else { "▼S" }
}

pub(crate) fn arrow_word(is_long: bool) -> &'static str {
    if is_long { "▲ LONG" } else { "▼ SHORT" }
}
