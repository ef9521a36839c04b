//! Every check of both codecs, run eagerly: the crate's codecs found in an array's chain (inside
//! `sharding_indexed` too), each checked, and the chain decided as a whole ([`crate::chain`]).

mod walk;

use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{Array, ArrayError, ArrayMetadata, FillValue, FillValueMetadata};

use crate::chain::ElementCodec;
use crate::numeric::{NumericType, decode, element_bits, numeric_type, parse_scalar};
use crate::{CastValueCodec, Error, ScaleOffsetCodec};

/// Runs every check of the `scale_offset` and `cast_value` codecs of `array` now.
///
/// zarrs shows an array-to-array codec its data type and fill value only when chunks are encoded or
/// decoded, so the checks that depend on them run then, before any chunk is touched: that the data
/// type is supported, that `offset`, `scale` and the `scalar_map` entries are values of their data
/// types, and that the fill value passes through each codec (and, for `cast_value`, survives the
/// round trip). Call this right after `Array::open` or `ArrayBuilder::build` to get those errors
/// at once. Codecs inside `sharding_indexed` are checked too.
///
/// # What it decides, and what it changes
/// It decides the chain as a whole: that every value a later codec can hand back (rounded,
/// clamped, wrapped or mapped) the codecs before it can decode, and whether the fill value comes
/// back from the whole chain bit for bit. Where both hold, it changes how later writes are checked:
/// each `scale_offset` and `cast_value` codec instance of `array` (also inside `sharding_indexed`)
/// remembers the codecs after it, and its writes from then on refuse an element only where the
/// whole chain could not read it back, rather than wherever its own decode alone could not.
/// Without it each codec checks only its own part: on a chain it accepts, every write that
/// succeeds still reads back; on one it rejects, a write may store values an earlier codec cannot
/// decode. What it changes applies to those instances only:
/// - an array opened again (`Array::open`) has new instances, which check on their own until
///   `validate_array` is called on that array;
/// - an instance shared by chains that differ after it (the same `Arc` in two arrays) checks on
///   its own;
/// - reads are unchanged.
///
/// For an array that uses these codecs, the fill value's JSON is also checked against the Zarr V3
/// fill value grammar of its data type (zarrs' own parser accepts some malformed forms, such as
/// `"0x+f"`), and against what zarrs read from it (without zarrs' `microfloat` feature, a JSON
/// number for a 4-, 6- or 8-bit float is read as its bits, not as its value).
///
/// # Errors
/// Returns the first error, as a read or write would report it.
pub fn validate_array<TStorage: ?Sized>(array: &Array<TStorage>) -> Result<(), ArrayError> {
    let chain = array.codecs();
    let uses_these_codecs = chain.array_to_array_codecs().iter().any(|codec| {
        codec.as_any().is::<ScaleOffsetCodec>() || codec.as_any().is::<CastValueCodec>()
    });
    if uses_these_codecs
        && let ArrayMetadata::V3(metadata) = array.metadata()
        && let Some(t) = numeric_type(array.data_type())
    {
        check_fill_value_json(t, &metadata.fill_value, array.fill_value())?;
    }
    walk::validate(array)
}

/// Checks the fill value's JSON strictly, and that zarrs read it as that value.
fn check_fill_value_json(
    t: NumericType,
    json: &FillValueMetadata,
    read: &FillValue,
) -> Result<(), ArrayError> {
    let bits = parse_scalar(t, json, false).map_err(|reason| Error::FillValue {
        json: json.to_string(),
        reason: format!("not a valid {t} value: {reason}"),
    })?;
    let value = decode(t.kind(), bits);
    let zarrs = decode(t.kind(), element_bits(read.as_ne_bytes()));
    if value != zarrs && !(value.is_nan() && zarrs.is_nan()) {
        let hex = format!("{bits:0width$x}", width = 2 * t.size());
        let hex = &hex[hex.len() - 2 * t.size()..];
        return Err(Error::FillValue {
            json: json.to_string(),
            reason: format!(
                "as a {t} value this is {value}, but zarrs read it as {zarrs} (as its bits: zarrs' microfloat feature is off); write the fill value as \"0x{hex}\""
            ),
        }
        .into());
    }
    Ok(())
}

/// The crate's codec behind `codec`, if it is one.
pub(crate) fn element_codec(codec: &Arc<dyn ArrayToArrayCodecTraits>) -> Option<&dyn ElementCodec> {
    let any = codec.as_any();
    if let Some(codec) = any.downcast_ref::<ScaleOffsetCodec>() {
        return Some(codec);
    }
    any.downcast_ref::<CastValueCodec>()
        .map(|codec| codec as &dyn ElementCodec)
}
