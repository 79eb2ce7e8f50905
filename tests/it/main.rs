//! One integration-test binary (each file in tests/ would link the whole graph again).

mod properties;
mod vectors;
