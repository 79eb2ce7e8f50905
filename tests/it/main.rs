//! One integration-test binary (each file in tests/ would link the whole graph again).

mod alerts;
mod cli;
mod decoders;
mod hostile;
mod properties;
mod readme;
mod sim;
mod simkit;
mod support;
mod trading;
mod ui;
mod vectors;
