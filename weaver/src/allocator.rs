//! The global allocator of the `major` binary and the agent: mimalloc, which
//! serves the weave's many small allocations on several threads at once with
//! less time in the allocator than the C library's malloc.

use std::alloc::{GlobalAlloc, Layout};

/// mimalloc, through its plain `malloc`/`realloc` where the alignment asked
/// for is at most a word's, which every block has (`mimalloc::MiMalloc`
/// always takes the aligned entry points: some 20 instructions more per call,
/// over 3 million calls in a weave of java.base); the aligned ones otherwise.
/// Install it with `#[global_allocator] static A: Allocator = Allocator;`.
pub struct Allocator;

/// The alignment of every block mimalloc's `mi_malloc` returns.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: every block comes from mimalloc and goes back to it; a layout
// aligned beyond a word takes `MiMalloc`'s aligned calls.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_malloc(layout.size()).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

// mimalloc.h (v3)'s options, by their place in `mi_option_e` (show_errors
// is 0), and its calls on them. Declared here: the `extended` bindings of
// libmimalloc-sys need a crate this build does not have. A test holds the
// numbers to the defaults of the mimalloc linked.
/// `mi_option_purge_delay`.
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
/// `mi_option_allow_thp`.
const MI_OPTION_ALLOW_THP: std::ffi::c_int = 43;
extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    #[cfg(test)]
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
}

/// Tells mimalloc to keep the memory it frees for reuse rather than give it
/// back to the kernel (its `purge_delay` option set to -1). A `major` run is
/// short: what mimalloc gave back (`madvise`, 100-170 calls in a one-class
/// update of guava, and every freed page again at exit) was faulted in again
/// when reused, or given back for nothing just before the process exits and
/// the kernel takes it all anyway. Measured: a one-class jar update of guava
/// 1.3 ms less CPU time (about 5%; bench/README.md, Session 13).
pub fn keep_freed_memory() {
    // SAFETY: sets one of mimalloc's options (plain integers), which it
    // reads when it next considers purging; mimalloc is this binary's
    // allocator (linked statically by libmimalloc-sys).
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

/// Tells mimalloc not to ask the kernel for transparent huge pages for the
/// memory it maps from now on (its `allow_thp` option set to 0, which it
/// reads on each mapping), without turning them off for the whole process
/// as the option does when set before mimalloc starts: for the agent, whose
/// process is a JVM that may want huge pages for its own heap.
///
/// Why: mimalloc advises its arenas `MADV_HUGEPAGE`, so every 2 MiB of them
/// the agent first touches is a huge page the kernel clears in the page
/// fault, on whichever thread is loading a class. In a first run of a hello
/// world under the agent that clearing was 17% of the loading thread's time
/// (perf, bench/README.md, Session 22). With 4 KiB pages only what is
/// touched is cleared. Call it before the first allocation that maps an
/// arena: the first one is mapped on the first allocation, and its advice
/// is given then.
pub fn no_huge_pages_from_now_on() {
    // SAFETY: sets one of mimalloc's options (plain integers), which it
    // reads when it next maps memory; mimalloc is linked statically by
    // libmimalloc-sys.
    unsafe { mi_option_set(MI_OPTION_ALLOW_THP, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every alignment come back aligned, keep their contents
    /// through a reallocation, and are freed by the same allocator.
    #[test]
    fn aligned_blocks_round_trip() {
        for align in [1usize, 2, 4, 8, 16, 64, 4096] {
            let layout = Layout::from_size_align(24, align).unwrap();
            // SAFETY: a non-zero size; every block freed with its layout.
            unsafe {
                let p = Allocator.alloc_zeroed(layout);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0, "alignment {align}");
                assert!(std::slice::from_raw_parts(p, 24).iter().all(|&b| b == 0));
                p.write_bytes(7, 24);
                let q = Allocator.realloc(p, layout, 4000);
                assert_eq!(q as usize % align, 0, "alignment {align} after realloc");
                assert!(std::slice::from_raw_parts(q, 24).iter().all(|&b| b == 7));
                Allocator.dealloc(q, Layout::from_size_align(4000, align).unwrap());
            }
        }
    }

    /// The option numbers are those of the mimalloc linked: each reads its
    /// default there (a number off by one would read a neighbour's: 0 for
    /// `minimal_purge_size` after `allow_thp`, 16 for the one before it).
    #[test]
    fn the_option_numbers_are_mimallocs() {
        // SAFETY: reads two options (plain integers).
        let (purge_delay, allow_thp) = unsafe {
            (
                mi_option_get(MI_OPTION_PURGE_DELAY),
                mi_option_get(MI_OPTION_ALLOW_THP),
            )
        };
        assert_eq!(
            purge_delay, 1000,
            "mimalloc's purge_delay defaults to 1000 ms"
        );
        assert_eq!(
            allow_thp, 1,
            "mimalloc's allow_thp defaults to 1 (off Android)"
        );
        // SAFETY: as above, the neighbours of allow_thp.
        let (before, after) = unsafe {
            (
                mi_option_get(MI_OPTION_ALLOW_THP - 1),
                mi_option_get(MI_OPTION_ALLOW_THP + 1),
            )
        };
        assert_ne!((before, after), (1, 1));
    }
}
