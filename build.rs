//! Tells the crate's tests whether the CPU building them has AVX-512 (F, VL, DQ, BW): the tests
//! of the AVX-512 kernels run there, and are ignored elsewhere rather than passing untried.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(avx512_host)");
    println!("cargo::rerun-if-changed=build.rs");
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    if native && host_has_avx512() {
        println!("cargo::rustc-cfg=avx512_host");
    }
}

#[cfg(target_arch = "x86_64")]
fn host_has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_avx512() -> bool {
    false
}
