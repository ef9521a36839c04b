//! `cast_value`'s fill value: its encoding for reads, and the checks a write makes of it.

use zarrs::array::FillValue;

use super::codec::{Bound, CastValueCodec, element_bytes};
use super::message::reason;
use super::{CastValueError, NAME};
use crate::Direction;
use crate::chain::{Context, check_fill_rule};
use crate::error::Error;
use crate::numeric::{Value, decode, element_bits};
use crate::plugin::codec_traits::check_fill_size;

impl CastValueCodec {
    /// The fill value and its encoding, which is all a read needs of it: the encode must
    /// succeed, as the specification casts the fill value "using the same casting semantics as
    /// elements".
    fn fill_encoding(
        &self,
        bound: &Bound,
        fill_value: &FillValue,
    ) -> Result<(Value, u64), CastValueError> {
        let (source, target) = (bound.source, self.settings.target);
        let bytes = fill_value.as_ne_bytes();
        check_fill_size(bytes.len(), source.size()).map_err(CastValueError::from)?;
        let x = decode(source.kind(), element_bits(bytes));
        let encoded = bound
            .encode_cast
            .cast(x)
            .map_err(|kind| CastValueError::FillValue {
                value: x.to_string(),
                data_type: source.name(),
                reason: format!(
                    "cannot be encoded: {}",
                    reason(
                        &self.settings,
                        Direction::Encode,
                        source,
                        target,
                        x,
                        kind.into()
                    )
                ),
            })?;
        Ok((x, encoded))
    }

    /// Pushes the fill value through the codec and back, and returns its encoding: the encode and
    /// the decode must succeed and the value must survive, as the specification requires of the
    /// arrays a write creates (reads take any fill value that encodes, see
    /// [`Self::read_fill_value`]).
    pub(super) fn encode_fill_value(
        &self,
        bound: &Bound,
        fill_value: &FillValue,
    ) -> Result<Vec<u8>, CastValueError> {
        let (source, target) = (bound.source, self.settings.target);
        let (x, encoded) = self.fill_encoding(bound, fill_value)?;
        let fill_error = |reason: String| CastValueError::FillValue {
            value: x.to_string(),
            data_type: source.name(),
            reason,
        };
        let y = decode(target.kind(), encoded);
        let back = bound.decode_cast.cast(y).map_err(|kind| {
            fill_error(format!(
                "encodes to {y} ({target}), which cannot be decoded: {}",
                reason(
                    &self.settings,
                    Direction::Decode,
                    target,
                    source,
                    y,
                    kind.into()
                )
            ))
        })?;
        let z = decode(source.kind(), back);
        if !x.same_number(z) {
            return Err(fill_error(format!(
                "does not survive the round trip: it encodes to {y} ({target}) and decodes to {z}; use a fill value that {target} holds exactly, or map it with scalar_map"
            )));
        }
        Ok(element_bytes(encoded, target.size()))
    }

    /// The fill value's encoding as a read takes it: any fill value that encodes, whether or not
    /// it survives the round trip, so that arrays other implementations wrote with such a fill
    /// value stay readable (writes refuse them, as [`Self::encode_fill_value`] does).
    pub(super) fn read_fill_value(
        &self,
        bound: &Bound,
        fill_value: &FillValue,
    ) -> Result<Vec<u8>, CastValueError> {
        let (_, encoded) = self.fill_encoding(bound, fill_value)?;
        Ok(element_bytes(encoded, self.settings.target.size()))
    }

    /// For a write: the fill value must come back bit for bit (see [`check_fill_rule`]).
    pub(super) fn check_fill_rule(
        &self,
        bound: &Bound,
        fill_value: &FillValue,
        context: Option<&Context>,
    ) -> Result<(), Error> {
        let round_trip = |bits| {
            let encoded = self
                .convert_one_bound(bound, Direction::Encode, bits)
                .ok()?;
            self.convert_one_bound(bound, Direction::Decode, encoded)
                .ok()
        };
        let fill = (bound.source, fill_value.as_ne_bytes());
        check_fill_rule(context, fill, NAME, round_trip)
    }
}
