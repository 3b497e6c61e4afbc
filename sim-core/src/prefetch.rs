//! A cache prefetch hint: the one `unsafe` block of the workspace.
//!
//! With a million nodes, nearly every node access is a cache miss. The event loop knows
//! which nodes the next events will touch, and asks the CPU to start loading them while
//! it works on the current event. A plain load would do that in safe code, but a load
//! must complete before the instructions after it can retire, so it stalls the loop
//! instead of overlapping with it; a prefetch instruction retires at once.

/// Ask the CPU to start loading the cache lines of `*x`, up to four 64-byte lines from
/// its start. No effect on results: only on timing, and only on x86-64 (elsewhere it
/// does nothing).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    let lines = size_of::<T>().div_ceil(64).clamp(1, 4);
    let base = (x as *const T).cast::<u8>();
    for i in 0..lines {
        prefetch_line(base.wrapping_add(64 * i));
    }
}

#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: `prefetch` is a hint: it never faults, loads nothing into a register and
    // writes nothing, whatever the address. SSE, which provides it, is part of the
    // x86-64 baseline.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
