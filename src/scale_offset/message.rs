//! The messages of `scale_offset` element errors.

use crate::Direction;
use crate::element::scale_offset::Parameters;
use crate::numeric::fault::{Fault, FaultKind};
use crate::numeric::{NumericType, Value};

/// Why an element of `t` failed in `direction` with `parameters`, and what to change.
pub(super) fn reason(
    t: NumericType,
    parameters: Parameters,
    direction: Direction,
    value: Value,
    fault: Fault,
) -> String {
    let Parameters { offset, scale } = parameters;
    let text = |v: Option<Value>, identity: &str| {
        v.map_or_else(|| identity.to_string(), |v| v.to_string())
    };
    let (offset, scale) = (text(offset, "0"), text(scale, "1"));
    if let Some(encoded) = fault.encoded {
        return format!(
            "it encodes to {encoded}, but ({encoded} / {scale}) + {offset} leaves the range of {t}, so the chunk could never be read; choose an offset and scale that keep every value well inside the range"
        );
    }
    match (fault.kind, direction) {
        (FaultKind::InvalidEncoding, _) => format!(
            "its byte {:#04x} is not a {t} encoding ({t} has {} value bits; the others must be {})",
            crate::numeric::fault::encoding_byte(value),
            t.bits(),
            if t.is_integer() {
                "a sign extension of its value bits"
            } else {
                "zero"
            }
        ),
        (FaultKind::NotExact, _) => format!(
            "{value} / {scale} leaves a remainder, and {t} holds only integers; integer data must be multiples of the scale"
        ),
        (_, Direction::Encode) => format!(
            "(x - {offset}) * {scale} leaves the range of {t}; choose an offset and scale that keep every value in range, or a wider data type"
        ),
        (_, Direction::Decode) => format!(
            "(x / {scale}) + {offset} leaves the range of {t}; the stored data does not fit this offset and scale"
        ),
    }
}
