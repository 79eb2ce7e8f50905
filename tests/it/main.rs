//! One integration-test binary (each file in tests/ would link the whole graph again).

mod alerts;
mod cli;
mod decoders;
mod explore_run;
mod explore_ui;
mod explorer;
mod funding;
mod hostile;
mod hypercore;
mod key_setup_ui;
mod layers;
mod liquidations;
mod mcp;
mod mcp_http;
mod properties;
mod pty;
mod readme;
mod screen;
mod sim;
mod simkit;
mod support;
mod trading;
mod tui_run;
mod ui;
mod vectors;
mod warmup;
