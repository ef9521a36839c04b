//! `scalar_map`: explicit input → output mappings, evaluated before anything else (procedure
//! step 1 of the [specification](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/cast_value)).
//!
//! Keys and values are read with their own side's data type. Keys match numerically: NaN matches
//! any NaN, -0 matches +0. Readers use the first occurrence of a repeated key, so later duplicates
//! are dropped when the map is read.

use zarrs::array::FillValueMetadata;

use super::CastValueError;
use crate::Direction;
use crate::numeric::{Element, MapInput, NumericType, Storage, Value, decode, parse_scalar};

/// One entry, read for its data types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MapEntry {
    /// The key, as a value of the input data type.
    pub(crate) key: Value,
    /// The key's encoding in the input data type.
    pub(crate) key_bits: u64,
    /// The mapped value's encoding in the output data type.
    pub(crate) value_bits: u64,
}

/// Reads the entries of one direction: keys as `from` values, mapped values as `to` values.
///
/// # Errors
/// Returns [`CastValueError::InvalidScalarMapEntry`] for an entry that is not a value of its type.
pub(crate) fn read_entries(
    entries: &[[FillValueMetadata; 2]],
    direction: Direction,
    from: NumericType,
    to: NumericType,
) -> Result<Vec<MapEntry>, CastValueError> {
    let mut read: Vec<MapEntry> = Vec::with_capacity(entries.len());
    for (position, [key, value]) in entries.iter().enumerate() {
        let parse = |json: &FillValueMetadata, data_type: NumericType, side| {
            parse_scalar(data_type, json, true).map_err(|reason| {
                CastValueError::InvalidScalarMapEntry {
                    direction,
                    position,
                    side,
                    json: json.to_string(),
                    data_type: data_type.name(),
                    reason: reason.to_string(),
                }
            })
        };
        let key_bits = parse(key, from, "key")?;
        let value_bits = parse(value, to, "value")?;
        let key = decode(from.kind(), key_bits);
        // The first occurrence of a key wins.
        if !read.iter().any(|entry| entry.key.same_number(key)) {
            read.push(MapEntry {
                key,
                key_bits,
                value_bits,
            });
        }
    }
    Ok(read)
}

/// The mapped value for `value`, if an entry's key matches it.
pub(crate) fn lookup(entries: &[MapEntry], value: Value) -> Option<u64> {
    entries
        .iter()
        .find(|entry| entry.key.same_number(value))
        .map(|entry| entry.value_bits)
}

/// A map typed for a kernel from `S` to `D`.
#[derive(Debug)]
pub(crate) struct ScalarMap<S: MapInput, D: Element> {
    /// `(key, key is NaN, mapped value)`.
    entries: Vec<(S::Key, bool, D::Storage)>,
}

impl<S: MapInput, D: Element> ScalarMap<S, D> {
    /// Types the entries.
    pub(crate) fn new(entries: &[MapEntry]) -> Self {
        Self {
            entries: entries
                .iter()
                .map(|entry| {
                    let key = S::key(S::Storage::from_bits(entry.key_bits));
                    (
                        key,
                        entry.key.is_nan(),
                        D::Storage::from_bits(entry.value_bits),
                    )
                })
                .collect(),
        }
    }

    /// Overwrites the output of every element that matches a key.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    pub(crate) fn overwrite(&self, input: &[S::Storage], output: &mut [D::Storage]) {
        for &(key, key_is_nan, mapped) in &self.entries {
            let items = input.iter().zip(output.iter_mut());
            if key_is_nan {
                for (&x, y) in items {
                    *y = if S::key_is_nan(S::key(x)) { mapped } else { *y };
                }
            } else {
                for (&x, y) in items {
                    *y = if S::key(x) == key { mapped } else { *y };
                }
            }
        }
    }

    /// Clears the flag of every element that matches a key.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    pub(crate) fn unflag(&self, input: &[S::Storage], flags: &mut [u8]) {
        for &(key, key_is_nan, _) in &self.entries {
            let items = input.iter().zip(flags.iter_mut());
            if key_is_nan {
                for (&x, flag) in items {
                    *flag &= u8::from(!S::key_is_nan(S::key(x)));
                }
            } else {
                for (&x, flag) in items {
                    *flag &= u8::from(S::key(x) != key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(
        json: &str,
        from: NumericType,
        to: NumericType,
    ) -> Result<Vec<MapEntry>, CastValueError> {
        let entries: Vec<[FillValueMetadata; 2]> = serde_json::from_str(json).unwrap();
        read_entries(&entries, Direction::Encode, from, to)
    }

    #[test]
    fn the_first_occurrence_of_a_key_wins() {
        let read = entries(
            r#"[["NaN", 1], ["NaN", 2], [0, 5], [-0.0, 6], ["0x7ff8000000000001", 7]]"#,
            NumericType::Float64,
            NumericType::UInt8,
        )
        .unwrap();
        let values: Vec<u64> = read.iter().map(|e| e.value_bits).collect();
        assert_eq!(values, [1, 5]);
        assert_eq!(lookup(&read, Value::from_f64(-0.0)), Some(5));
        assert_eq!(lookup(&read, Value::Nan), Some(1));
        assert_eq!(lookup(&read, Value::from_f64(1.0)), None);
    }

    #[test]
    fn keys_and_values_are_read_with_their_own_data_type() {
        let read = entries(
            r"[[9223372036854775807, 0], [-9223372036854775808, 1]]",
            NumericType::Int64,
            NumericType::Int8,
        )
        .unwrap();
        assert_eq!(read[0].key, Value::from_i64(i64::MAX));
        let error =
            entries(r#"[["NaN", 999]]"#, NumericType::Float64, NumericType::Int8).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cast_value: scalar_map.encode[0] value 999 is not a valid int8 value: outside the range of the data type"
        );
        assert!(entries(r#"[["NaN", 0]]"#, NumericType::Int32, NumericType::Int8).is_err());
    }

    #[test]
    fn matching_elements_take_the_mapped_value_and_lose_their_flag() {
        use crate::numeric::element::{Float64, UInt8};
        let read = entries(
            r#"[["NaN", 0], [0.0, 9]]"#,
            NumericType::Float64,
            NumericType::UInt8,
        )
        .unwrap();
        let map = ScalarMap::<Float64, UInt8>::new(&read);
        let input = [f64::NAN, -0.0, 1.0];
        let mut output = [7u8; 3];
        let mut flags = [1u8; 3];
        map.overwrite(&input, &mut output);
        map.unflag(&input, &mut flags);
        assert_eq!(output, [0, 9, 7]);
        assert_eq!(flags, [0, 0, 1]);
    }
}
