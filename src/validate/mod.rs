//! Every check of both codecs, run eagerly: the crate's codecs found in an array's chain (inside
//! `sharding_indexed` too), each checked, and the chain decided as a whole ([`crate::chain`]).

mod checked;
mod walk;

pub use checked::CheckedArray;
pub(crate) use walk::sharding_configuration;

use std::sync::Arc;

use zarrs::array::codec::CodecChain;
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, CodecError};
use zarrs::array::{Array, ArrayError, ArrayMetadata, FillValue, FillValueMetadata};

use crate::chain::ElementCodec;
use crate::numeric::{NumericType, decode, element_bits, numeric_type, parse_scalar};
use crate::{CastValueCodec, Error, ScaleOffsetCodec};

/// Runs every check of the `scale_offset` and `cast_value` codecs of `array` now, and decides
/// its chain as a whole; it changes nothing.
///
/// zarrs shows an array-to-array codec its data type and fill value only when chunks are encoded or
/// decoded, so the checks that depend on them run then, before any chunk is touched: that the data
/// type is supported, that `offset`, `scale` and the `scalar_map` entries are values of their data
/// types, and that the fill value passes through each codec (and, for `cast_value`, survives the
/// round trip). Call this right after `Array::open` or `ArrayBuilder::build` to get those errors
/// at once. Codecs inside `sharding_indexed` are checked too.
///
/// It also decides what no codec can see alone: that every value a later codec can hand back
/// (rounded, clamped, wrapped or mapped) the codecs before it can decode, and that the fill value
/// comes back from the whole chain bit for bit. A chain that fails either is refused with an error
/// naming the value, the codecs and what to change. Writes through `array` are not changed by it:
/// each codec keeps checking its own part. For writes checked against the whole chain, use
/// [`CheckedArray`](crate::CheckedArray), which runs this check first.
///
/// For an array that uses these codecs, the fill value's JSON is also checked against the Zarr V3
/// fill value grammar of its data type (zarrs' own parser accepts some malformed forms, such as
/// `"0x+f"`), and against what zarrs read from it (without zarrs' `microfloat` feature, a JSON
/// number for a 4-, 6- or 8-bit float is read as its bits, not as its value).
///
/// It costs milliseconds for a chain through 16-bit types; nothing is kept between calls.
///
/// # Errors
/// Returns the first error, as a read or write would report it.
pub fn validate_array<TStorage: ?Sized>(array: &Array<TStorage>) -> Result<(), ArrayError> {
    check_fill_value(array)?;
    walk::decide(array).map(drop)
}

/// Where `array` uses these codecs, checks its fill value's JSON ([`check_fill_value_json`]).
fn check_fill_value<TStorage: ?Sized>(array: &Array<TStorage>) -> Result<(), ArrayError> {
    if uses_these_codecs(&array.codecs())?
        && let ArrayMetadata::V3(metadata) = array.metadata()
        && let Some(t) = numeric_type(array.data_type())
    {
        check_fill_value_json(t, &metadata.fill_value, array.fill_value())?;
    }
    Ok(())
}

/// Whether `chain`, or the inner chain of its `sharding_indexed` codec, holds one of the crate's
/// codecs.
fn uses_these_codecs(chain: &CodecChain) -> Result<bool, ArrayError> {
    if chain.array_to_array_codecs().iter().any(|codec| {
        codec.as_any().is::<ScaleOffsetCodec>() || codec.as_any().is::<CastValueCodec>()
    }) {
        return Ok(true);
    }
    match sharding_configuration(chain.array_to_bytes_codec())? {
        Some(sharding) => {
            let inner = CodecChain::from_metadata(&sharding.codecs)
                .map_err(|error| CodecError::Other(error.to_string()))?;
            uses_these_codecs(&inner)
        }
        None => Ok(false),
    }
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
