//! The guaranteed error of a quantisation, and the codes it can produce.
//!
//! Encoding computes `t = fl(fl(x - o) * s)` in the float format, rounds `t` to the nearest
//! integer `q`, and decoding computes `z = fl(fl(q / s) + o)`. With `u` the unit roundoff and
//! `e` half the smallest subnormal, each operation errs by at most `u * |result| + e`. For `x` in
//! `[min, max]`, with `A = max |x - o|` and `X = max |x|`:
//!
//! - `|fl(x - o) - (x - o)| <= u A + e`, so `|fl(x - o)| <= A (1 + u) + e = D`;
//! - `|t - (x - o) s| <= s (u A + e) + u D s + e = T` and `|q - t| <= 1/2`, so
//!   `|q / s - (x - o)| <= 1/(2s) + T/s = d`;
//! - `|fl(q / s) - q / s| <= u (A + d) + e`, and
//!   `|z - (fl(q / s) + o)| <= u (X + d + u (A + d) + e) + e`.
//!
//! The sum of the last three is the bound; it is evaluated in float64 and then enlarged by a
//! relative `2^-40` to cover the rounding of its own evaluation.

use super::format::Format;

/// The largest error of decoding the encoding of any `x` in `[min, max]` (`offset <= min` is not
/// required), and the interval that `t` lies in.
pub(super) struct Bound {
    /// The guaranteed largest absolute error.
    pub(super) error: f64,
    /// The smallest and largest code an element of `[min, max]` can be stored as.
    pub(super) codes: (f64, f64),
}

/// Enlarges a non-negative float64 evaluation so that it covers its own rounding.
fn up(x: f64) -> f64 {
    x * (1.0 + 2f64.powi(-40))
}

#[expect(
    clippy::many_single_char_names,
    reason = "the names of the derivation above"
)]
pub(super) fn bound(format: Format, min: f64, max: f64, offset: f64, scale: f64) -> Bound {
    let (u, e) = (format.unit_roundoff(), format.subnormal_error());
    let a = up((min - offset).abs().max((max - offset).abs()));
    let x = min.abs().max(max.abs());
    let d_value = up(a * (1.0 + u) + e);
    let t = up(scale * (u * a + e) + u * d_value * scale + e);
    let d = up(0.5 / scale + t / scale);
    let error = up(d + (u * (a + d) + e) + (u * (x + d + u * (a + d) + e) + e));
    // Codes: q = round(t) with t within T of (x - o) s.
    let lo = (min - offset) * scale;
    let hi = (max - offset) * scale;
    let lo = lo - up(lo.abs() * 2f64.powi(-50) + t);
    let hi = hi + up(hi.abs() * 2f64.powi(-50) + t);
    Bound {
        error,
        codes: ((lo - 0.5).ceil(), (hi + 0.5).floor()),
    }
}
