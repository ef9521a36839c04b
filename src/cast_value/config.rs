//! Reading a `cast_value` configuration: everything that does not depend on the input data type
//! is checked when the codec is created.

use zarrs::array::{DataType, FillValueMetadata};
use zarrs::metadata::Configuration;
use zarrs_metadata_ext::codec::cast_value::CastValueCodecConfigurationV1;

use super::CastValueError;
use crate::Direction;
use crate::numeric::{
    NumericType, OutOfRangeMode, RoundingMode, check_scalar_syntax, numeric_type, parse_scalar,
};

/// The configuration, read.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) target: NumericType,
    pub(crate) target_data_type: DataType,
    pub(crate) rounding: RoundingMode,
    pub(crate) out_of_range: Option<OutOfRangeMode>,
}

pub(crate) fn invalid(message: impl Into<String>) -> CastValueError {
    CastValueError::InvalidConfiguration(message.into())
}

/// Checks the shape of `scalar_map`: `{"encode": [[in, out], ...], "decode": [...]}`.
fn check_scalar_map_shape(map: &serde_json::Value) -> Result<(), CastValueError> {
    let map = map.as_object().ok_or_else(|| {
        invalid(format!(
            "scalar_map must be an object with \"encode\" and/or \"decode\", not {map}"
        ))
    })?;
    for (direction, entries) in map {
        if direction != "encode" && direction != "decode" {
            return Err(invalid(format!(
                "scalar_map has an unknown field {direction:?}; expected \"encode\" or \"decode\""
            )));
        }
        let entries = entries.as_array().ok_or_else(|| {
            invalid(format!(
                "scalar_map.{direction} must be a list of [input, output] pairs, not {entries}"
            ))
        })?;
        for (position, entry) in entries.iter().enumerate() {
            if entry.as_array().is_none_or(|pair| pair.len() != 2) {
                return Err(invalid(format!(
                    "scalar_map.{direction}[{position}] must be an [input, output] pair, not {entry}"
                )));
            }
        }
    }
    Ok(())
}

/// Reads the `configuration` of the codec's metadata, with errors that name the field.
pub(crate) fn parse_configuration(
    configuration: &Configuration,
) -> Result<CastValueCodecConfigurationV1, CastValueError> {
    for (key, value) in configuration.iter() {
        if value.is_null() {
            return Err(invalid(format!(
                "{key} must not be null; omit it for its default"
            )));
        }
        if key == "scalar_map" {
            check_scalar_map_shape(value)?;
        }
    }
    if !configuration.contains_key("data_type") {
        return Err(invalid("the configuration must name the target data_type"));
    }
    serde_json::from_value(serde_json::Value::Object((**configuration).clone()))
        .map_err(|error| invalid(error.to_string()))
}

/// The `scalar_map` entries of `direction` in `config`.
pub(crate) fn entries(
    config: &CastValueCodecConfigurationV1,
    direction: Direction,
) -> &[[FillValueMetadata; 2]] {
    let map = config.scalar_map.as_ref();
    let entries = match direction {
        Direction::Encode => map.and_then(|map| map.encode.as_deref()),
        Direction::Decode => map.and_then(|map| map.decode.as_deref()),
    };
    entries.unwrap_or_default()
}

/// Checks everything in `config` that does not depend on the input data type.
pub(crate) fn read_configuration(
    config: &CastValueCodecConfigurationV1,
) -> Result<Settings, CastValueError> {
    let not_supported = || {
        invalid(format!(
            "data_type {} is not supported: cast_value casts to integer and floating-point data types",
            config.data_type
        ))
    };
    let target_data_type =
        DataType::from_metadata(&config.data_type).map_err(|_| not_supported())?;
    let target = numeric_type(&target_data_type).ok_or_else(not_supported)?;
    if config.out_of_range == Some(OutOfRangeMode::Wrap) && !target.is_integer() {
        return Err(invalid(format!(
            "out_of_range \"wrap\" is only permitted for integer data types, not {target}; use \"clamp\" or omit out_of_range"
        )));
    }

    // Scalars of the target type are read now; those of the input type when it is known, and
    // until then they must at least be scalars of some type.
    check_entries(
        entries(config, Direction::Encode),
        Direction::Encode,
        target,
        1,
    )?;
    check_entries(
        entries(config, Direction::Decode),
        Direction::Decode,
        target,
        0,
    )?;

    Ok(Settings {
        target,
        target_data_type,
        rounding: config.rounding.unwrap_or_default(),
        out_of_range: config.out_of_range,
    })
}

/// Checks the entries of one direction of `scalar_map`: the side `target_side` fully as values of
/// `target`, the other side by syntax.
fn check_entries(
    entries: &[[FillValueMetadata; 2]],
    direction: Direction,
    target: NumericType,
    target_side: usize,
) -> Result<(), CastValueError> {
    for (position, entry) in entries.iter().enumerate() {
        for (side_index, json) in entry.iter().enumerate() {
            let side = if side_index == 0 { "key" } else { "value" };
            let result = if side_index == target_side {
                parse_scalar(target, json, true).map(|_| ())
            } else {
                check_scalar_syntax(json, true)
            };
            result.map_err(|reason| CastValueError::InvalidScalarMapEntry {
                direction,
                position,
                side,
                json: json.to_string(),
                data_type: if side_index == target_side {
                    target.name()
                } else {
                    "the input data type"
                },
                reason: reason.to_string(),
            })?;
        }
    }
    Ok(())
}
