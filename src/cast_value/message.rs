//! What `cast_value` errors say: why an element or the fill value failed, and what to change.

use super::config::Settings;
use crate::Direction;
use crate::numeric::fault::{Fault, FaultKind};
use crate::numeric::{Kind, NumericType, OutOfRangeMode, RoundingMode, Value, finite_range};

/// The spec's name of a rounding mode.
pub(crate) const fn rounding_name(mode: RoundingMode) -> &'static str {
    match mode {
        RoundingMode::NearestEven => "nearest-even",
        RoundingMode::NearestAway => "nearest-away",
        RoundingMode::TowardsZero => "towards-zero",
        RoundingMode::TowardsPositive => "towards-positive",
        RoundingMode::TowardsNegative => "towards-negative",
    }
}

/// The finite range of a data type, as `[min, max]`.
pub(crate) fn range_text(data_type: NumericType) -> String {
    let (min, max) = finite_range(data_type);
    format!("[{min}, {max}]")
}

/// Why a cast of `value` from `from` to `to` in `direction` failed with `kind`.
fn cause(
    settings: &Settings,
    direction: Direction,
    to: NumericType,
    value: Value,
    kind: FaultKind,
) -> String {
    let map = format!("scalar_map.{direction}");
    match kind {
        FaultKind::NanNotRepresentable => {
            format!("{to} has no NaN; add an entry for \"NaN\" to {map}")
        }
        FaultKind::InfinityNotRepresentable => {
            format!("{to} has no infinities; add an entry for \"{value}\" to {map}")
        }
        FaultKind::OutOfRange | FaultKind::NotExact => {
            let modes = match (to.kind(), settings.out_of_range) {
                (_, Some(OutOfRangeMode::Clamp)) => "",
                (Kind::Int(_), _) => "set out_of_range to \"clamp\" or \"wrap\", or ",
                (Kind::Float(_), _) => "set out_of_range to \"clamp\", or ",
            };
            format!(
                "it is outside the range of {to} {} after rounding ({}); {modes}add an entry for {value} to {map}",
                range_text(to),
                rounding_name(settings.rounding),
            )
        }
        FaultKind::InvalidEncoding => format!("it is not an encoding of {to}"),
    }
}

/// Why an element `value` failed a cast from `from` to `to` in `direction`, and what to change.
pub(crate) fn reason(
    settings: &Settings,
    direction: Direction,
    from: NumericType,
    to: NumericType,
    value: Value,
    fault: Fault,
) -> String {
    if fault.kind == FaultKind::InvalidEncoding {
        let spare = if from.is_integer() {
            "a sign extension of its value bits"
        } else {
            "zero"
        };
        return format!(
            "its byte {:#04x} is not a {from} encoding ({from} has {} value bits; the others must be {spare})",
            crate::numeric::fault::encoding_byte(value),
            from.bits()
        );
    }
    let Some(encoded) = fault.encoded else {
        return cause(settings, direction, to, value, fault.kind);
    };
    format!(
        "it becomes {encoded} in {to}, which the decode of this configuration rejects ({}), so the chunk could never be read; choose a configuration whose decode takes it back (or add an entry for {value} to scalar_map.encode)",
        cause(settings, Direction::Decode, from, encoded, fault.kind)
    )
}
