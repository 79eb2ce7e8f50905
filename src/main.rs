fn main() -> std::process::ExitCode {
    papertrade_tui::cli::main()
}
