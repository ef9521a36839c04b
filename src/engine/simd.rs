//! Run-time choice of the instruction set the kernel loops are compiled for.
//!
//! The kernels are plain loops written for auto-vectorisation. Each kernel hands its loops to
//! [`Isa::run`] as a [`Vectorized`] value, whose `#[inline(always)]` method is compiled again
//! into a function with AVX2 and FMA enabled and once more with AVX-512 (F, VL, DQ, BW); the best
//! copy the CPU can run is chosen once. (A trait rather than a closure: inlining is then
//! guaranteed, not a heuristic.) The results are the same on every path: no approximate
//! instructions, and fused multiply-adds only where they are exact by construction (the decode's
//! division, `scale_offset::kernel::division`, which takes them only where [`Isa::has_fma`] says
//! they run in hardware). The tests run every kernel on every path the CPU offers.

use std::sync::OnceLock;

use super::{Slots, Typed, Written};

/// An instruction set the kernel loops can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Isa(Set);

/// Private, so that only detection can produce a set the CPU might not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Set {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Isa {
    /// The baseline of the compilation target.
    pub(crate) const PORTABLE: Self = Self(Set::Portable);

    /// The best instruction set of this CPU (detected once).
    pub(crate) fn best() -> Self {
        static BEST: OnceLock<Isa> = OnceLock::new();
        *BEST.get_or_init(|| *Self::available().last().unwrap_or(&Self::PORTABLE))
    }

    /// Every instruction set this CPU can run, the baseline first.
    pub(crate) fn available() -> Vec<Self> {
        let mut sets = vec![Self::PORTABLE];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            sets.push(Self(Set::Avx2));
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                sets.push(Self(Set::Avx512));
            }
        }
        sets
    }

    /// Whether these loops are compiled with x86's FMA instructions, so that `mul_add` is one
    /// instruction rather than a library call: AVX2 and AVX-512, and the baseline where the target
    /// enables `fma`. Other architectures answer no: the correction was not measured there.
    pub(crate) fn has_fma(self) -> bool {
        self != Self::PORTABLE || cfg!(target_feature = "fma")
    }

    /// Runs `kernel`'s loop over one block, compiled for this instruction set.
    pub(crate) fn run_block<'a, K: Typed>(
        self,
        kernel: &K,
        input: &[K::In],
        output: Slots<'a, K::Out>,
    ) -> (Written<'a, K::Out>, bool) {
        self.run(Block {
            kernel,
            input,
            output,
        })
    }

    /// Runs `loops` compiled for this instruction set.
    pub(crate) fn run<V: Vectorized>(self, loops: V) -> V::Output {
        match self.0 {
            Set::Portable => loops.run(),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Set::Avx2` exists only when detection found AVX2 and FMA.
            Set::Avx2 => unsafe { avx2(loops) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Set::Avx512` exists only when detection found AVX2, FMA and the four
            // AVX-512 subsets.
            Set::Avx512 => unsafe { avx512(loops) },
        }
    }
}

/// One block of a [`Typed`] kernel's loop, to run on an instruction set.
struct Block<'k, 'a, K: Typed> {
    kernel: &'k K,
    input: &'k [K::In],
    output: Slots<'a, K::Out>,
}

impl<'a, K: Typed> Vectorized for Block<'_, 'a, K> {
    type Output = (Written<'a, K::Out>, bool);

    #[inline(always)]
    fn run(self) -> Self::Output {
        self.kernel.block(self.input, self.output)
    }
}

/// Loops to compile for each instruction set.
pub(crate) trait Vectorized {
    /// What the loops give.
    type Output;
    /// Runs the loops. Implementations are `#[inline(always)]`, as is every function they call on
    /// the hot path, so that they are compiled into each instruction set's copy.
    fn run(self) -> Self::Output;
}

/// `loops` compiled with AVX2 and FMA enabled (a caller without them needs the CPU to have them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn avx2<V: Vectorized>(loops: V) -> V::Output {
    loops.run()
}

/// `loops` compiled with AVX-512 (F, VL, DQ, BW) enabled (a caller without them needs the CPU to
/// have them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,avx512f,avx512vl,avx512dq,avx512bw")]
fn avx512<V: Vectorized>(loops: V) -> V::Output {
    loops.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sum<'a>(&'a [u32]);

    impl Vectorized for Sum<'_> {
        type Output = u32;
        fn run(self) -> u32 {
            self.0.iter().sum()
        }
    }

    #[test]
    fn the_baseline_is_always_available_and_the_best_set_is_one_of_them() {
        let available = Isa::available();
        assert_eq!(available[0], Isa::PORTABLE);
        assert!(available.contains(&Isa::best()));
        for isa in available {
            assert_eq!(isa.run(Sum(&[40, 2])), 42);
        }
    }
}
