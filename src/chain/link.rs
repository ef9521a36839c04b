//! What a codec built by [`CheckedArray`](crate::CheckedArray) knows of its chain, and a chunk's
//! conversion against it.

use std::borrow::Cow;
use std::sync::Arc;

use zarrs::array::{DataType, FillValue};

use super::step::Step;
use crate::engine::{Kernel, blockwise};
use crate::error::Error;
use crate::error::describe_bits;
use crate::numeric::fault::ElementFault;
use crate::numeric::{NumericType, RoundingMode, Value, encode, write_element_bits};

/// The fill value rule, decided for the whole chain.
#[derive(Clone, Debug)]
pub(crate) enum FillRule {
    /// The chain returns the fill value bit for bit.
    Survives,
    /// The chain changes the fill value: every write is refused with this error.
    Changes(Error),
}

/// What a codec learns about its place in a chain.
#[derive(Debug)]
pub(crate) struct Context {
    /// The data type the codec receives in that chain.
    pub(crate) data_type: DataType,
    /// The fill value it receives.
    pub(crate) fill: Vec<u8>,
    /// The codecs after it, if it is not the last one (its own check is exact then) and the
    /// checks can follow every codec after it.
    pub(crate) rest: Option<Vec<Step>>,
    /// The fill value rule of the whole chain, where the checks can follow every codec.
    pub(crate) fill_rule: Option<FillRule>,
    /// The codecs before it, from the start of the chain, where the checks can follow each of
    /// them: what an element written to the array was, for its messages.
    pub(crate) before: Option<Vec<Step>>,
}

/// A codec's place in its chain: the context [`CheckedArray`](crate::CheckedArray) built it
/// with, or none (a codec zarrs created from metadata, which checks on its own).
///
/// Set only when the codec is built, never changed afterwards; a copy of the codec (`Clone`) may
/// go into another chain, so it starts without one.
#[derive(Debug, Default)]
pub(crate) struct Place(Option<Arc<Context>>);

impl Clone for Place {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Place {
    /// The place described by `context`.
    pub(crate) fn new(context: Context) -> Self {
        Self(Some(Arc::new(context)))
    }

    /// The context for a codec receiving `data_type` and `fill_value`, if it was built with one
    /// for them.
    pub(crate) fn get(&self, data_type: &DataType, fill_value: &FillValue) -> Option<&Context> {
        self.0.as_deref().filter(|context| {
            context.data_type == *data_type && context.fill == fill_value.as_ne_bytes()
        })
    }
}

impl Context {
    /// The value written to the array that reached the codec as `value` (of `input`, the data
    /// type the codec receives), as messages show it; `None` where no codec before it changed it
    /// or it cannot be traced back.
    pub(crate) fn written(&self, input: NumericType, value: Value) -> Option<Box<str>> {
        let before = self.before.as_deref()?;
        let first = before.first()?.input();
        let mut bits = encode(value, input.kind(), RoundingMode::NearestEven, None).ok()?;
        for step in before.iter().rev() {
            bits = step.decode(bits).ok()?;
        }
        Some(describe_bits(first, bits).into())
    }
}

/// An element that failed, and the value written to the array it came from, where known.
pub(crate) type Traced = (ElementFault, Option<Box<str>>);

/// Converts a chunk's elements `bytes` (of `input`, the data type the codec receives) through
/// `kernel`, the codec's kernel of its direction: where the codec has a `context` (an encode by a
/// codec [`CheckedArray`](crate::CheckedArray) built with its chain), against the codecs after it
/// ([`encode_against_rest`], `step` being the codec's own), else on its own on up to `threads`
/// threads.
///
/// # Errors
/// Returns the first element that fails, and the value written to the array it came from where
/// the context traces it back ([`Context::written`]).
pub(crate) fn convert_chunk<'a>(
    kernel: &dyn Kernel,
    step: impl FnOnce() -> Step,
    context: Option<&Context>,
    input: NumericType,
    bytes: Cow<'a, [u8]>,
    threads: usize,
) -> Result<Cow<'a, [u8]>, Traced> {
    match context.and_then(|context| context.rest.as_deref()) {
        Some(rest) => encode_against_rest(kernel, &step(), rest, &bytes).map(Cow::Owned),
        None => blockwise::apply(kernel, bytes, threads),
    }
    .map_err(|fault| {
        let written = context.and_then(|context| context.written(input, fault.value));
        (fault, written)
    })
}

/// Encodes `input` through `kernel` (the encode of `step`), where an element whose encode the
/// codec's own decode rejects is refused only if the codecs after it (`rest`) would hand that
/// value back to the decode unchanged.
///
/// # Errors
/// Returns the first element that cannot be encoded, or that the chain could not read back.
pub(crate) fn encode_against_rest(
    kernel: &dyn Kernel,
    step: &Step,
    rest: &[Step],
    input: &[u8],
) -> Result<Vec<u8>, ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let n = input.len() / in_size;
    let mut output = vec![0u8; n * out_size];
    let mut start = 0;
    while start < n {
        let Err(fault) = blockwise::apply_into(
            kernel,
            &input[start * in_size..],
            &mut output[start * out_size..],
        ) else {
            break;
        };
        let fault = fault.offset(start);
        let Some(encoded) = fault.fault.encoded else {
            return Err(fault);
        };
        let at = fault.index;
        // The elements before it convert as they are; the output of the failed pass may be partial.
        blockwise::apply_into(
            kernel,
            &input[start * in_size..at * in_size],
            &mut output[start * out_size..at * out_size],
        )
        .map_err(|f| f.offset(start))?;
        let kind = step.output().kind();
        let y =
            encode(encoded, kind, RoundingMode::NearestEven, None).expect("a value of the type");
        if !reads_back(step, rest, y) {
            return Err(fault);
        }
        write_element_bits(y, &mut output[at * out_size..(at + 1) * out_size]);
        start = at + 1;
    }
    Ok(output)
}

/// Whether `y`, which `step` encoded to, comes back through the codecs after it as a value that
/// `step` decodes, or is refused by one of them anyway (each checks its own part).
pub(crate) fn reads_back(step: &Step, rest: &[Step], y: u64) -> bool {
    let mut x = y;
    for later in rest {
        match later.encode(x) {
            Ok(next) => x = next,
            Err(_) => return true,
        }
    }
    for later in rest.iter().rev() {
        match later.decode(x) {
            Ok(previous) => x = previous,
            Err(_) => return true,
        }
    }
    step.decode(x).is_ok()
}
