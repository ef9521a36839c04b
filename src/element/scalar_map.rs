//! `scalar_map`: explicit input → output mappings, evaluated before anything else (procedure
//! step 1 of the [specification](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/cast_value)).
//!
//! Keys and values are read with their own side's data type. Keys match numerically: NaN matches
//! any NaN, -0 matches +0. Readers use the first occurrence of a repeated key, so later duplicates
//! are dropped when the map is read.

use zarrs::array::FillValueMetadata;

use crate::Direction;
use crate::error::CastValueError;
use crate::numeric::{
    MapInput, NumericType, RoundingMode, Storage, Value, decode, encode, parse_scalar,
};

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

/// A map for a kernel, its keys encoded as the kernel reads its input and its mapped values as
/// the kernel writes them (compiled once; only the loops that apply it are typed).
///
/// Entries whose mapped value the decode of the same configuration rejects are kept apart
/// (`poisoned`): an element matching one is left to the exact path, which reports it.
#[derive(Debug)]
pub(crate) struct ScalarMap {
    /// `(key bits, key is NaN, mapped value bits)`.
    entries: Vec<(u64, bool, u64)>,
    /// `(key bits, key is NaN)` of the poisoned entries.
    poisoned: Vec<(u64, bool)>,
}

impl ScalarMap {
    /// Encodes the keys for input elements held as `storage` (which holds every key exactly);
    /// `poisoned` tells the entries to keep apart.
    pub(crate) fn new(
        entries: &[MapEntry],
        storage: NumericType,
        poisoned: &dyn Fn(&MapEntry) -> bool,
    ) -> Self {
        let mut map = Self {
            entries: Vec::new(),
            poisoned: Vec::new(),
        };
        for entry in entries {
            let key = encode(entry.key, storage.kind(), RoundingMode::NearestEven, None)
                .expect("the storage holds every key exactly");
            if poisoned(entry) {
                map.poisoned.push((key, entry.key.is_nan()));
            } else {
                map.entries
                    .push((key, entry.key.is_nan(), entry.value_bits));
            }
        }
        map
    }

    /// Whether an element matches the key `(key, key is NaN)`.
    #[inline(always)]
    fn matches<S: MapInput>(x: S, key: S, key_is_nan: bool) -> bool {
        if key_is_nan { x.key_is_nan() } else { x == key }
    }

    /// Overwrites the output of every element that matches a (not poisoned) key; returns whether
    /// an element matches a poisoned key.
    #[inline(always)]
    pub(crate) fn overwrite<S: MapInput, O: Storage>(&self, input: &[S], output: &mut [O]) -> bool {
        for &(key, key_is_nan, mapped) in &self.entries {
            let (key, mapped) = (S::from_bits(key), O::from_bits(mapped));
            let items = input.iter().zip(output.iter_mut());
            if key_is_nan {
                for (&x, y) in items {
                    *y = if x.key_is_nan() { mapped } else { *y };
                }
            } else {
                for (&x, y) in items {
                    *y = if x == key { mapped } else { *y };
                }
            }
        }
        let mut hit = false;
        for &(key, key_is_nan) in &self.poisoned {
            let key = S::from_bits(key);
            hit |= input.iter().any(|&x| Self::matches(x, key, key_is_nan));
        }
        hit
    }

    /// Whether the element is settled by a (not poisoned) entry.
    pub(crate) fn settles<S: MapInput>(&self, x: S) -> bool {
        self.entries
            .iter()
            .any(|&(key, nan, _)| Self::matches(x, S::from_bits(key), nan))
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
    fn matching_elements_take_the_mapped_value_and_poisoned_keys_are_reported() {
        let read = entries(
            r#"[["NaN", 0], [0.0, 9], [2.5, 4]]"#,
            NumericType::Float64,
            NumericType::UInt8,
        )
        .unwrap();
        let map = ScalarMap::new(&read, NumericType::Float64, &|entry| entry.value_bits == 4);
        let input = [f64::NAN, -0.0, 1.0];
        let mut output = [7u8; 3];
        assert!(!map.overwrite(&input, &mut output));
        assert_eq!(output, [0, 9, 7]);
        assert!(map.settles(f64::NAN) && map.settles(0.0) && !map.settles(2.5));
        assert!(map.overwrite(&[1.0, 2.5], &mut [0u8; 2]));
        // Keys are encoded for the storage that holds the input (float32 here).
        let map = ScalarMap::new(&read, NumericType::Float32, &|_| false);
        let mut output = [7u8; 4];
        assert!(!map.overwrite(&[f32::NAN, -0.0, 2.5, 1.0], &mut output));
        assert_eq!(output, [0, 9, 4, 7]);
    }
}
