//! The legacy `numcodecs.fixedscaleoffset` codec: its configuration, numcodecs' own decoding (the
//! oracle the migration is checked against), and the codecs that replace it.

use half::f16;
use serde_json::{Value, json};

use super::MigrateError;
use crate::int_type::IntType;

/// The data types the migration handles: float arrays stored as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Float {
    Float16,
    Float32,
    Float64,
}

/// A `numcodecs.fixedscaleoffset` configuration (offset and scale as numcodecs reads them: as
/// Python floats, i.e. float64).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Legacy {
    pub(super) offset: f64,
    pub(super) scale: f64,
    pub(super) dtype: Float,
    /// The integer type the values are stored as.
    pub(super) astype: IntType,
}

/// The Zarr V3 name of a Zarr V2 (`NumPy`) data type string, without its byte order.
fn v2_type(name: &str) -> Option<&'static str> {
    let bare = name.trim_start_matches(['<', '|', '=']);
    Some(match bare {
        "f2" => "float16",
        "f4" => "float32",
        "f8" => "float64",
        "i1" => "int8",
        "i2" => "int16",
        "i4" => "int32",
        "i8" => "int64",
        "u1" => "uint8",
        "u2" => "uint16",
        "u4" => "uint32",
        "u8" => "uint64",
        _ => return None,
    })
}

impl Legacy {
    /// Reads a configuration (`offset`, `scale`, `dtype`, `astype`).
    pub(super) fn new(configuration: &Value) -> Result<Self, MigrateError> {
        let unsupported = |reason: String| MigrateError::Unsupported(reason);
        let number = |field: &str| {
            configuration[field]
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    unsupported(format!(
                        "{field} {} is not a finite number",
                        configuration[field]
                    ))
                })
        };
        let (offset, scale) = (number("offset")?, number("scale")?);
        if scale == 0.0 {
            return Err(unsupported("scale is 0".into()));
        }
        let text = |field: &str| {
            configuration[field]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let (dtype, astype) = (text("dtype"), text("astype"));
        let dtype = match v2_type(&dtype) {
            Some("float16") => Float::Float16,
            Some("float32") => Float::Float32,
            Some("float64") => Float::Float64,
            _ => {
                return Err(unsupported(format!(
                    "dtype {dtype:?} is not a float type (<f2, <f4, <f8)"
                )));
            }
        };
        if let Some(name) = astype.strip_prefix('>').and_then(v2_type) {
            return Err(unsupported(format!(
                "astype {astype:?} is a big-endian {name}; the migration takes little-endian integer types (<i2, <u2, ...)"
            )));
        }
        let astype_type = v2_type(&astype)
            .and_then(IntType::from_name)
            .ok_or_else(|| unsupported(format!("astype {astype:?} is not an integer type")))?;
        Ok(Self {
            offset,
            scale,
            dtype,
            astype: astype_type,
        })
    }

    /// numcodecs' decoding of the stored integer `q`: `q / scale + offset` in float64 (`NumPy`
    /// divides an integer array by a Python float in float64), then a cast to `dtype` (to
    /// nearest, overflowing to infinity).
    pub(super) fn decode(&self, q: i128) -> f64 {
        #[expect(
            clippy::cast_precision_loss,
            reason = "NumPy rounds to nearest, as `as` does"
        )]
        let x = q as f64 / self.scale + self.offset;
        match self.dtype {
            Float::Float64 => x,
            #[expect(clippy::cast_possible_truncation, reason = "the cast NumPy does")]
            Float::Float32 => f64::from(x as f32),
            Float::Float16 => f64::from(f16::from_f64(x)),
        }
    }

    /// The codecs that replace the legacy codec: `scale_offset` and `cast_value` with `wrap` as the
    /// specification's conversion says; for a float32 or float16 array led by a `cast_value` to
    /// float64, because numcodecs decodes in float64 and only then rounds to the array's type.
    /// With `fill_entry` (the fill value after `scale_offset` and the code it is stored as), the
    /// last `cast_value` maps the two both ways.
    pub(super) fn codecs(&self, fill_entry: Option<(f64, i128)>) -> Vec<Value> {
        let mut codecs = Vec::new();
        if self.dtype != Float::Float64 {
            codecs.push(json!({"name": "cast_value", "configuration": {
                "data_type": "float64", "rounding": "nearest-even"}}));
        }
        codecs.push(json!({"name": "scale_offset", "configuration": {
            "offset": self.offset, "scale": self.scale}}));
        let mut cast = json!({"name": "cast_value", "configuration": {
            "data_type": self.astype.name(), "rounding": "nearest-even", "out_of_range": "wrap"}});
        if let Some((value, code)) = fill_entry {
            let value = scalar_json(value);
            let code = u64::try_from(code)
                .map_or_else(|_| json!(i64::try_from(code).unwrap_or(0)), |c| json!(c));
            cast["configuration"]["scalar_map"] =
                json!({"encode": [[value.clone(), code.clone()]], "decode": [[code, value]]});
        }
        codecs.push(cast);
        codecs
    }

    /// Where the new chain does not do what numcodecs does, for values written from now on.
    pub(super) fn differences(&self, fill: f64, fill_entry: Option<(f64, i128)>) -> Vec<String> {
        let mut notes = vec![
            "new writes round (x - offset) * scale to nearest-even and wrap into the storage type, as numcodecs does".to_string(),
        ];
        if self.dtype != Float::Float64 {
            notes.push(format!(
                "numcodecs encodes a {} array in its own arithmetic; the new chain encodes in float64, so a new write can store a value one code apart from what numcodecs would (the chunks already written stay as they are and read the same)",
                self.dtype_name()
            ));
        }
        if let Some((value, code)) = fill_entry {
            notes.push(format!(
                "the fill value {fill} becomes {value} after scale_offset, which {} cannot hold exactly; cast_value stores it as {code}, a code no stored element uses (numcodecs stored whatever its cast gave)",
                self.astype.name()
            ));
        }
        notes
    }

    pub(super) fn dtype_name(&self) -> &'static str {
        match self.dtype {
            Float::Float16 => "float16",
            Float::Float32 => "float32",
            Float::Float64 => "float64",
        }
    }
}

/// A float64 as a scalar of the fill-value encoding.
fn scalar_json(x: f64) -> Value {
    if x.is_nan() {
        json!("NaN")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(x)
    }
}

/// The stored integers of `bytes` (native-endian elements of the integer type `astype`).
pub(super) fn integers(astype: IntType, bytes: &[u8]) -> Vec<i128> {
    astype.values(bytes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Float, Legacy};

    #[expect(clippy::cast_possible_truncation, reason = "the rounding under test")]
    fn f32_value(x: f64) -> f32 {
        x as f32
    }

    #[test]
    fn configurations_are_read_as_numcodecs_reads_them() {
        let legacy =
            Legacy::new(&json!({"offset": -0.1, "scale": 10000, "dtype": "<f8", "astype": "<u2"}))
                .unwrap();
        assert_eq!((legacy.offset, legacy.scale), (-0.1, 10000.0));
        assert_eq!(
            (legacy.dtype, legacy.astype.name()),
            (Float::Float64, "uint16")
        );
        // float64 arithmetic: 4464 / 10000 - 0.1.
        assert_eq!(
            legacy.decode(4464).to_bits(),
            (4464.0f64 / 10000.0 - 0.1).to_bits()
        );
        let f32_legacy =
            Legacy::new(&json!({"offset": 10, "scale": 0.1, "dtype": "<f4", "astype": "|u1"}))
                .unwrap();
        assert_eq!(
            f32_legacy.decode(3).to_bits(),
            f64::from(f32_value(3.0f64 / 0.1 + 10.0)).to_bits()
        );
        assert_eq!(f32_legacy.codecs(None).len(), 3);
        for (bad, says) in [
            (
                json!({"offset": 0, "scale": 0, "dtype": "<f8", "astype": "<u2"}),
                "scale",
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<i4", "astype": "<u2"}),
                "is not a float type",
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<f8", "astype": "<f4"}),
                "\"<f4\" is not an integer type",
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<f8", "astype": ">u2"}),
                "\">u2\" is a big-endian uint16",
            ),
            (
                json!({"offset": 0, "scale": 1, "dtype": "<f8", "astype": ">i2"}),
                "\">i2\" is a big-endian int16",
            ),
            (
                json!({"offset": "x", "scale": 1, "dtype": "<f8", "astype": "<u2"}),
                "offset",
            ),
        ] {
            let error = Legacy::new(&bad).unwrap_err().to_string();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}
