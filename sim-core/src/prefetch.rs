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
    prefetch_bytes((x as *const T).cast::<u8>(), size_of::<T>(), 4);
}

/// As [`prefetch`], but at most `max_lines` lines (at least one).
#[inline(always)]
pub(crate) fn prefetch_lines<T>(x: &T, max_lines: usize) {
    prefetch_bytes(
        (x as *const T).cast::<u8>(),
        size_of::<T>(),
        max_lines.clamp(1, 4),
    );
}

/// Hints up to `max_lines` 64-byte lines from `base` (at least one).
#[inline(always)]
fn prefetch_bytes(base: *const u8, len: usize, max_lines: usize) {
    let lines = len.div_ceil(64).clamp(1, max_lines);
    for i in 0..lines {
        prefetch_line(base.wrapping_add(64 * i));
    }
}

/// What a node may ask the engine to start loading, a few events before the node is
/// handled: its own heap data (tables, buffers), which the engine cannot see
/// ([`crate::Node::prefetch_state`]). A hint only: whatever is asked, results are the
/// same; asking for memory the next event does not touch only costs bandwidth.
#[derive(Debug)]
pub struct Prefetcher(());

/// Lines one request may cover (1 KiB): enough for the head of a table, small enough
/// not to flood the memory system.
const MAX_LINES: usize = 16;

impl Prefetcher {
    pub(crate) const fn new() -> Self {
        Prefetcher(())
    }

    /// Start loading the first lines of `s` (up to 1 KiB).
    #[inline(always)]
    pub fn slice<T>(&self, s: &[T]) {
        if !s.is_empty() {
            prefetch_bytes(s.as_ptr().cast::<u8>(), size_of_val(s), MAX_LINES);
        }
    }

    /// Start loading the lines of `x` (up to 1 KiB).
    #[inline(always)]
    pub fn value<T>(&self, x: &T) {
        prefetch_bytes((x as *const T).cast::<u8>(), size_of::<T>(), MAX_LINES);
    }
}

/// Ask the CPU to start loading the cache line holding `*x` (one line only).
#[inline(always)]
pub(crate) fn prefetch_one<T>(x: &T) {
    prefetch_line((x as *const T).cast::<u8>());
}

/// Ask the CPU to start loading the cache line of `s[i]` (no bounds check: a hint for an
/// index out of range loads nothing useful, and harms nothing).
#[inline(always)]
pub(crate) fn prefetch_index<T>(s: &[T], i: usize) {
    prefetch_line(s.as_ptr().wrapping_add(i).cast::<u8>());
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
