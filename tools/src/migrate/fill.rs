//! The fill value of a migrated array: numcodecs stored whatever integer its cast gave, but
//! `cast_value` requires the fill value to survive its round trip. Where `(fill - offset) * scale`
//! is not a value of the stored type (NaN, say, or a fill value off the grid), the migrated
//! `cast_value` maps it to a code that no stored element uses.

use half::f16;
use serde_json::Value;
use zarrs::array::{ArrayBytes, ArrayError};

use super::legacy::{Float, Legacy, integers};
use super::{MigrateError, metadata_error};
use crate::int_type::IntType;

/// The smallest and largest value of the integer type `t`.
fn range(t: IntType) -> (i128, i128) {
    (t.min(), t.max())
}

/// The codes the stored elements use.
#[derive(Debug)]
pub(super) struct UsedCodes {
    min: i128,
    max: i128,
    /// For types of at most 16 bits, which codes occur.
    seen: Option<Vec<bool>>,
    type_range: (i128, i128),
}

impl UsedCodes {
    pub(super) fn new(astype: IntType) -> Self {
        let type_range = range(astype);
        let seen = usize::try_from(type_range.1 - type_range.0 + 1)
            .ok()
            .filter(|&codes| codes <= 65_536)
            .map(|codes| vec![false; codes]);
        Self {
            min: i128::MAX,
            max: i128::MIN,
            seen,
            type_range,
        }
    }

    /// Adds the codes of a stored chunk.
    pub(super) fn add(
        &mut self,
        astype: IntType,
        stored: ArrayBytes<'_>,
    ) -> Result<(), ArrayError> {
        for q in integers(astype, &stored.into_fixed()?) {
            self.min = self.min.min(q);
            self.max = self.max.max(q);
            if let Some(seen) = &mut self.seen
                && let Ok(i) = usize::try_from(q - self.type_range.0)
            {
                seen[i] = true;
            }
        }
        Ok(())
    }

    /// A code no stored element uses: the type's largest or smallest, else the first free one.
    fn free(&self) -> Option<i128> {
        let (lo, hi) = self.type_range;
        if self.max < hi {
            return Some(hi);
        }
        if self.min > lo {
            return Some(lo);
        }
        let seen = self.seen.as_ref()?;
        let i = seen.iter().rposition(|used| !used)?;
        Some(lo + i128::try_from(i).ok()?)
    }
}

/// The array's fill value (Zarr V3 JSON of the float type `dtype`) as `f64`.
pub(super) fn fill_value(json: &Value, dtype: Float) -> Result<f64, MigrateError> {
    let text = json.as_str().unwrap_or_default();
    let value = match (json.as_f64(), text) {
        (Some(x), _) => x,
        (None, "NaN") => f64::NAN,
        (None, "Infinity") => f64::INFINITY,
        (None, "-Infinity") => f64::NEG_INFINITY,
        (None, hex) if hex.starts_with("0x") => {
            let bits = u64::from_str_radix(&hex[2..], 16).map_err(metadata_error)?;
            match dtype {
                Float::Float64 => f64::from_bits(bits),
                Float::Float32 => {
                    f64::from(f32::from_bits(u32::try_from(bits).map_err(metadata_error)?))
                }
                Float::Float16 => {
                    f64::from(f16::from_bits(u16::try_from(bits).map_err(metadata_error)?))
                }
            }
        }
        _ => {
            return Err(MigrateError::Metadata(format!(
                "fill_value {json} is not a float"
            )));
        }
    };
    Ok(value)
}

/// The `scalar_map` entry the migrated `cast_value` needs for the fill value `fill` (its input,
/// the fill value after `scale_offset`, and the code it is stored as), if it needs one.
pub(super) fn fill_entry(
    legacy: &Legacy,
    fill: f64,
    used: &UsedCodes,
) -> Result<Option<(f64, i128)>, MigrateError> {
    // The chain computes in float64 (a float32 or float16 fill value widens exactly).
    let t = (fill - legacy.offset) * legacy.scale;
    let (lo, hi) = range(legacy.astype);
    #[expect(
        clippy::cast_precision_loss,
        reason = "range bounds compared as float64"
    )]
    let holds = t.is_finite() && t.fract() == 0.0 && (lo as f64..=hi as f64).contains(&t);
    if holds {
        return Ok(None);
    }
    let code = used.free().ok_or_else(|| {
        MigrateError::Unsupported(format!(
            "the fill value {fill} becomes {t} after scale_offset, which {} cannot hold, and every code is in use, so none can be reserved for it",
            legacy.astype.name()
        ))
    })?;
    Ok(Some((t, code)))
}
