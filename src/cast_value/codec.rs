//! The `cast_value` codec: its configuration, bound to each data type it meets, and its conversions.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{CodecError, CodecOptions};
use zarrs::array::{ArrayBytes, DataType, FillValue};
use zarrs::metadata::Configuration;

use super::config::{Settings, entries, parse_configuration, read_configuration};
use super::kernel::dispatch::{CastSpec, cast_kernel};
use super::message::reason;
use super::{
    CastValueCodecConfiguration, CastValueCodecConfigurationV1, CastValueError,
    CastValueOutOfRangeMode, CastValueRoundingMode, CastValueScalarMap,
};
use crate::Direction;
use crate::chain::step::{Kernels, Step};
use crate::chain::{Place, convert_chunk};
use crate::element::cast_value::ElementCast;
use crate::element::scalar_map::read_entries;
use crate::engine::lut::SpareBits;
use crate::engine::simd::Isa;
use crate::engine::{Kernel, blockwise};
use crate::numeric::fault::ElementFault;
use crate::numeric::{NumericType, numeric_type, write_element_bits};
use crate::plugin::binding::Binding;
use crate::plugin::codec_traits::{check_fill_size, check_length};

/// The `cast_value` codec: converts the value of each element to another data type.
///
/// Create it from metadata (zarrs does so when it opens an array), with
/// [`builder`](Self::builder) or with [`new_with_configuration`](Self::new_with_configuration).
#[derive(Clone, Debug)]
pub struct CastValueCodec {
    /// The configuration as given; written back unchanged.
    pub(super) configuration: CastValueCodecConfigurationV1,
    pub(super) settings: Settings,
    binding: Binding<Bound>,
    pub(super) place: Place,
}

/// The codec bound to its input data type.
#[derive(Debug)]
pub(super) struct Bound {
    pub(super) source: NumericType,
    encode: Arc<dyn Kernel>,
    decode: Arc<dyn Kernel>,
    /// The exact casts of each direction, for the fill value.
    pub(super) encode_cast: ElementCast,
    pub(super) decode_cast: ElementCast,
}

impl CastValueCodec {
    /// Creates a `cast_value` codec from a configuration.
    ///
    /// # Errors
    /// Returns [`PluginCreateError::ConfigurationInvalid`](zarrs::plugin::PluginCreateError) if the
    /// configuration is invalid: an unsupported target data type, `"wrap"` with a float target, or
    /// a `scalar_map` entry that is not a valid scalar.
    pub fn new_with_configuration(
        configuration: &CastValueCodecConfiguration,
    ) -> Result<Self, zarrs::plugin::PluginCreateError> {
        match configuration {
            CastValueCodecConfiguration::V1(configuration) => {
                Ok(Self::from_v1(configuration.clone())?)
            }
            _ => Err(super::config::invalid("the configuration version is not supported").into()),
        }
    }

    /// Creates the codec from the `configuration` of its metadata.
    pub(crate) fn from_metadata(configuration: &Configuration) -> Result<Self, CastValueError> {
        Self::from_v1(parse_configuration(configuration)?)
    }

    /// Creates the codec from a typed configuration, which is kept to be written back unchanged.
    pub(crate) fn from_v1(
        configuration: CastValueCodecConfigurationV1,
    ) -> Result<Self, CastValueError> {
        let settings = read_configuration(&configuration)?;
        Ok(Self {
            configuration,
            settings,
            binding: Binding::default(),
            place: Place::default(),
        })
    }

    /// A builder of a cast to `data_type` (see [`CastValueCodecBuilder`](super::CastValueCodecBuilder)).
    #[must_use]
    pub fn builder(data_type: DataType) -> super::CastValueCodecBuilder {
        super::CastValueCodecBuilder::new(data_type)
    }

    /// The target data type: `data_type` of the configuration.
    #[must_use]
    pub fn data_type(&self) -> &DataType {
        &self.settings.target_data_type
    }

    /// The rounding mode: `rounding` of the configuration, `nearest-even` where it is absent.
    #[must_use]
    pub fn rounding(&self) -> CastValueRoundingMode {
        self.settings.rounding
    }

    /// The out-of-range mode: `out_of_range` of the configuration, `None` where it is absent (a
    /// value out of range is then an error).
    #[must_use]
    pub fn out_of_range(&self) -> Option<CastValueOutOfRangeMode> {
        self.settings.out_of_range
    }

    /// The `scalar_map` of the configuration, as given.
    #[must_use]
    pub fn scalar_map(&self) -> Option<&CastValueScalarMap> {
        self.configuration.scalar_map.as_ref()
    }

    pub(super) fn bound(&self, data_type: &DataType) -> Result<Arc<Bound>, CastValueError> {
        self.binding.get(data_type, || self.bind(data_type))
    }

    /// Reads the data-type-dependent configuration for `data_type` and chooses the kernels.
    fn bind(&self, data_type: &DataType) -> Result<Bound, CastValueError> {
        let s = &self.settings;
        let source =
            numeric_type(data_type).ok_or_else(|| CastValueError::UnsupportedDataType {
                data_type: data_type.clone(),
            })?;
        let cast = |from, to, map| ElementCast {
            from,
            to,
            rounding: s.rounding,
            out_of_range: s.out_of_range,
            map,
        };
        let encode_cast = cast(
            source,
            s.target,
            read_entries(
                entries(&self.configuration, Direction::Encode),
                Direction::Encode,
                source,
                s.target,
            )?,
        );
        let decode_cast = cast(
            s.target,
            source,
            read_entries(
                entries(&self.configuration, Direction::Decode),
                Direction::Decode,
                s.target,
                source,
            )?,
        );
        let isa = Isa::best();
        Ok(Bound {
            source,
            encode: cast_kernel(&CastSpec {
                forward: encode_cast.clone(),
                back: Some(decode_cast.clone()),
                isa,
                spare_bits: SpareBits::Refuse,
            }),
            decode: cast_kernel(&CastSpec {
                forward: decode_cast.clone(),
                back: None,
                isa,
                spare_bits: SpareBits::Ignore,
            }),
            encode_cast,
            decode_cast,
        })
    }

    pub(super) fn convert<'a>(
        &self,
        direction: Direction,
        bytes: ArrayBytes<'a>,
        shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        let bound = self.bound(data_type)?;
        let (kernel, from, to) = match direction {
            Direction::Encode => (&bound.encode, bound.source, self.settings.target),
            Direction::Decode => (&bound.decode, self.settings.target, bound.source),
        };
        // A write checks the fill value as the specification requires; a read does not need it.
        if direction == Direction::Encode {
            self.encode_fill_value(&bound, fill_value)?;
        } else {
            check_fill_size(fill_value.size(), bound.source.size())
                .map_err(CastValueError::from)?;
        }
        let bytes = bytes.into_fixed()?;
        check_length(bytes.len(), shape, from.size()).map_err(CastValueError::from)?;
        let context = match direction {
            Direction::Encode => self.place.get(data_type, fill_value),
            Direction::Decode => None,
        };
        if direction == Direction::Encode {
            self.check_fill_rule(&bound, fill_value, context)?;
        }
        let step = || self.step_of(&bound);
        let threads = options.concurrent_target();
        let converted = convert_chunk(kernel.as_ref(), step, context, from, bytes, threads)
            .map_err(|(fault, written)| self.element_error(direction, from, to, fault, written))?;
        Ok(ArrayBytes::new_flen(converted))
    }

    pub(super) fn step_of(&self, bound: &Bound) -> Step {
        let _ = self;
        Step::CastValue {
            encode: bound.encode_cast.clone(),
            decode: bound.decode_cast.clone(),
            kernels: Kernels(Some([Arc::clone(&bound.encode), Arc::clone(&bound.decode)])),
        }
    }

    /// One element through the kernel of `direction` (see [`blockwise::one`]).
    pub(super) fn convert_one_bound(
        &self,
        bound: &Bound,
        direction: Direction,
        bits: u64,
    ) -> Result<u64, CastValueError> {
        let (kernel, from, to) = match direction {
            Direction::Encode => (&bound.encode, bound.source, self.settings.target),
            Direction::Decode => (&bound.decode, self.settings.target, bound.source),
        };
        blockwise::one(kernel.as_ref(), bits, to.kind())
            .map_err(|fault| self.element_error(direction, from, to, fault, None))
    }

    /// The error for an element of a chunk.
    fn element_error(
        &self,
        direction: Direction,
        from: NumericType,
        to: NumericType,
        fault: ElementFault,
        written: Option<Box<str>>,
    ) -> CastValueError {
        CastValueError::Element {
            direction,
            index: fault.index,
            value: fault.value.to_string(),
            written,
            from: from.name(),
            to: to.name(),
            kind: fault.fault.into(),
            encoded: fault
                .fault
                .encoded
                .map(|encoded| encoded.to_string().into()),
            reason: reason(
                &self.settings,
                direction,
                from,
                to,
                fault.value,
                fault.fault,
            )
            .into(),
        }
    }
}

/// The `size` bytes of an element of bits `bits`.
pub(super) fn element_bytes(bits: u64, size: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; size];
    write_element_bits(bits, &mut bytes);
    bytes
}
