//! One integration-test binary (each file in tests/ would link the whole graph again).

mod cli;
mod properties;
mod support;
mod vectors;
