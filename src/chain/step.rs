//! A codec of a chain as its exact element functions, both ways.

use std::sync::Arc;

use crate::element::cast_value::ElementCast;
use crate::element::scale_offset::element;
use crate::element::scale_offset::{Parameters, encode_element};
use crate::engine::{Kernel, blockwise};
use crate::numeric::fault::FaultKind;
use crate::numeric::{
    Kind, NumericType, OutOfRangeMode, RoundingMode, Value, decode, element_bits, encode,
    write_element_bits,
};

/// The codec's kernels (encode, decode), which give what the element functions give and take
/// many elements at a time; none where the codec does nothing. Steps compare by their
/// configuration alone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kernels(pub(crate) Option<[Arc<dyn Kernel>; 2]>);

/// One of the crate's codecs, bound to its input data type.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// `scale_offset` on `t`.
    ScaleOffset {
        /// The data type.
        t: NumericType,
        /// `offset` and `scale`.
        parameters: Parameters,
        /// Its kernels.
        kernels: Kernels,
    },
    /// `cast_value`: the procedure each way.
    CastValue {
        /// From the input type to the target.
        encode: ElementCast,
        /// From the target back to the input type.
        decode: ElementCast,
        /// Its kernels.
        kernels: Kernels,
    },
}

/// Elements at a time through a kernel, in [`Step::encode_all`] and [`Step::decode_all`]: a run
/// with an element the kernel rejects goes through the element functions instead.
const RUN: usize = 64;

impl Step {
    /// The data type entering the codec when encoding.
    pub(crate) fn input(&self) -> NumericType {
        match self {
            Self::ScaleOffset { t, .. } => *t,
            Self::CastValue { encode, .. } => encode.from,
        }
    }

    /// The codec's kernels (encode, decode); none where it does nothing.
    pub(crate) fn kernels(&self) -> Option<&[Arc<dyn Kernel>; 2]> {
        let (Self::ScaleOffset { kernels, .. } | Self::CastValue { kernels, .. }) = self;
        kernels.0.as_ref()
    }

    /// The data type leaving the codec when encoding.
    pub(crate) fn output(&self) -> NumericType {
        match self {
            Self::ScaleOffset { t, .. } => *t,
            Self::CastValue { encode, .. } => encode.to,
        }
    }

    /// The encode of one element (bits of [`Self::input`] to bits of [`Self::output`]), by the
    /// specification alone: without the crate's check that the result decodes again.
    ///
    /// # Errors
    /// Returns why the element cannot be encoded.
    pub(crate) fn encode(&self, bits: u64) -> Result<u64, FaultKind> {
        match self {
            Self::ScaleOffset { parameters, .. } if parameters.is_identity() => Ok(bits),
            Self::ScaleOffset { t, parameters, .. } => {
                let y = encode_element(t.kind(), *parameters, decode(t.kind(), bits))?;
                encode(y, t.kind(), RoundingMode::NearestEven, None)
            }
            Self::CastValue { encode, .. } => encode.cast(decode(encode.from.kind(), bits)),
        }
    }

    /// The decode of one element (bits of [`Self::output`] to bits of [`Self::input`]).
    ///
    /// # Errors
    /// Returns why the element cannot be decoded.
    pub(crate) fn decode(&self, bits: u64) -> Result<u64, FaultKind> {
        match self {
            Self::ScaleOffset { parameters, .. } if parameters.is_identity() => Ok(bits),
            Self::ScaleOffset { t, parameters, .. } => {
                element(*t, crate::Direction::Decode, *parameters, bits).map_err(|f| f.kind)
            }
            Self::CastValue { decode, .. } => decode.cast(decode_value(decode.from, bits)),
        }
    }

    /// [`Self::encode`] without `scalar_map` entries: a function that never decreases with its
    /// input (never increases, for a negative scale), apart from `wrap`, which the entries
    /// interrupt at their keys.
    ///
    /// # Errors
    /// Returns why the element cannot be encoded.
    pub(crate) fn encode_unmapped(&self, bits: u64) -> Result<u64, FaultKind> {
        match self {
            Self::ScaleOffset { .. } => self.encode(bits),
            Self::CastValue { encode, .. } => encode.cast_unmapped(decode_value(encode.from, bits)),
        }
    }

    /// [`Self::decode`] without `scalar_map` entries (monotonic as [`Self::encode_unmapped`]).
    ///
    /// # Errors
    /// Returns why the element cannot be decoded.
    pub(crate) fn decode_unmapped(&self, bits: u64) -> Result<u64, FaultKind> {
        match self {
            Self::ScaleOffset { .. } => self.decode(bits),
            Self::CastValue { decode, .. } => decode.cast_unmapped(decode_value(decode.from, bits)),
        }
    }

    /// [`Self::encode`] of every element of `bits`.
    pub(crate) fn encode_all(&self, bits: &[u64]) -> Vec<Result<u64, FaultKind>> {
        self.all(0, bits, |x| self.encode(x))
    }

    /// [`Self::decode`] of every element of `bits`.
    pub(crate) fn decode_all(&self, bits: &[u64]) -> Vec<Result<u64, FaultKind>> {
        self.all(1, bits, |x| self.decode(x))
    }

    /// The results of `exact` for `bits`, through kernel `which` where the codec has one.
    fn all(
        &self,
        which: usize,
        bits: &[u64],
        exact: impl Fn(u64) -> Result<u64, FaultKind>,
    ) -> Vec<Result<u64, FaultKind>> {
        let Some(kernel) = self.kernels().map(|pair| &pair[which]) else {
            return bits.iter().map(|&x| exact(x)).collect();
        };
        let (in_size, out_size) = kernel.sizes();
        let mut input = vec![0u8; RUN * in_size];
        let mut output = vec![0u8; RUN * out_size];
        let mut results = Vec::with_capacity(bits.len());
        for run in bits.chunks(RUN) {
            let (input, output) = (
                &mut input[..run.len() * in_size],
                &mut output[..run.len() * out_size],
            );
            for (&x, slot) in run.iter().zip(input.chunks_exact_mut(in_size)) {
                write_element_bits(x, slot);
            }
            if blockwise::apply_into(kernel.as_ref(), input, output).is_ok() {
                results.extend(output.chunks_exact(out_size).map(|y| Ok(element_bits(y))));
            } else {
                results.extend(run.iter().map(|&x| exact(x)));
            }
        }
        results
    }

    /// Whether the encode never decreases with its input (else it never increases), apart from
    /// `scalar_map` entries and `wrap`.
    pub(crate) fn increasing(&self) -> bool {
        match self {
            Self::ScaleOffset { parameters, .. } => parameters.scale.is_none_or(|s| {
                s.compare(Value::zero(false))
                    .is_some_and(std::cmp::Ordering::is_gt)
            }),
            Self::CastValue { .. } => true,
        }
    }

    /// Whether the encode wraps values beyond the target's range.
    pub(crate) fn wraps(&self) -> bool {
        matches!(self, Self::CastValue { encode, .. } if encode.out_of_range == Some(OutOfRangeMode::Wrap))
    }

    /// The `scalar_map` keys of the encode.
    pub(crate) fn encode_keys(&self) -> Vec<Value> {
        match self {
            Self::ScaleOffset { .. } => Vec::new(),
            Self::CastValue { encode, .. } => encode.map.iter().map(|entry| entry.key).collect(),
        }
    }

    /// The `scalar_map` keys of the decode (values of [`Self::output`]).
    pub(crate) fn decode_keys(&self) -> Vec<Value> {
        match self {
            Self::ScaleOffset { .. } => Vec::new(),
            Self::CastValue { decode, .. } => decode.map.iter().map(|entry| entry.key).collect(),
        }
    }

    /// The `scalar_map` entries of the decode, as (key bits of the output type, value bits of the
    /// input type).
    pub(crate) fn decode_entries(&self) -> Vec<(u64, u64)> {
        match self {
            Self::ScaleOffset { .. } => Vec::new(),
            Self::CastValue { decode, .. } => decode
                .map
                .iter()
                .map(|entry| (entry.key_bits, entry.value_bits))
                .collect(),
        }
    }

    /// Whether decoding the encode of every finite input in `[lo, hi]` gives it back exactly
    /// (`scalar_map` entries aside), judged from the types and parameters.
    pub(crate) fn exact_between(&self, lo: Value, hi: Value) -> bool {
        match self {
            Self::ScaleOffset { t, parameters, .. } => parameters.is_identity() || t.is_integer(),
            Self::CastValue { encode, .. } => match (encode.from.kind(), encode.to.kind()) {
                (Kind::Int(_), Kind::Int(_)) => {
                    let within = |v| {
                        encode
                            .cast_unmapped(v)
                            .is_ok_and(|b| decode(encode.to.kind(), b) == v)
                    };
                    within(lo) && within(hi)
                }
                (Kind::Int(_), Kind::Float(to)) => {
                    let limit = Value::Finite {
                        negative: false,
                        significand: 1,
                        exponent: i32::try_from(to.precision()).expect("small"),
                    };
                    let magnitude = |v: Value| match v {
                        Value::Finite {
                            significand,
                            exponent,
                            ..
                        } => Value::Finite {
                            negative: false,
                            significand,
                            exponent,
                        },
                        other => other,
                    };
                    [lo, hi].iter().all(|&v| {
                        magnitude(v)
                            .compare(limit)
                            .is_some_and(std::cmp::Ordering::is_le)
                    })
                }
                (Kind::Float(from), Kind::Float(to)) => {
                    from.precision() <= to.precision()
                        && from.max_finite().1 + i32::try_from(from.precision()).expect("small")
                            <= to.max_finite().1 + i32::try_from(to.precision()).expect("small")
                        && from.min_normal_exponent()
                            - i32::try_from(from.precision()).expect("small")
                            >= to.min_normal_exponent()
                                - i32::try_from(to.precision()).expect("small")
                }
                (Kind::Float(_), Kind::Int(_)) => false,
            },
        }
    }
}

/// The value of an element of `t` given by its bits.
fn decode_value(t: NumericType, bits: u64) -> Value {
    decode(t.kind(), bits)
}
