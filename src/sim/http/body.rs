//! Reading request bodies field by field, the way the simulator always has: a field of the
//! wrong JSON type is neither serde's error nor silently accepted, so each route answers in its
//! own words (and a wrong type can mean "absent" where it always did).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::sim::controls::invalid_control;
use crate::sim::intake::Refusal;

/// One body field: absent, of the expected type, or some other JSON.
#[derive(Debug, Default)]
pub(super) enum Field<T> {
    #[default]
    Absent,
    Given(T),
    Wrong(Value),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match T::deserialize(&value) {
            Ok(t) => Field::Given(t),
            Err(_) => Field::Wrong(value),
        })
    }
}

impl<T> Field<T> {
    /// The value, if the field held the expected type.
    pub(super) fn given(self) -> Option<T> {
        match self {
            Field::Given(t) => Some(t),
            Field::Absent | Field::Wrong(_) => None,
        }
    }
}

impl Field<String> {
    /// A required string of a control.
    pub(super) fn text(&self, name: &str) -> Result<&str, Refusal> {
        match self {
            Field::Given(t) => Ok(t),
            Field::Absent | Field::Wrong(_) => {
                Err(invalid_control(format!("{name}: expected a string")))
            }
        }
    }

    /// The string, or empty when absent or not a string.
    pub(super) fn or_empty(self) -> String {
        self.given().unwrap_or_default()
    }
}

/// `body` as `T` if it is a JSON object (never an array read as a struct's fields in order).
pub(super) fn object<T: DeserializeOwned>(value: Value) -> Option<T> {
    match value {
        Value::Object(_) => T::deserialize(value).ok(),
        _ => None,
    }
}
