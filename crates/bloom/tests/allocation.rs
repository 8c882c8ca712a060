//! A table is allocated once, fallibly: building a classic filter must not
//! allocate its bit array twice, once fallibly and again (infallibly, so an
//! out-of-memory abort rather than an `Err`) inside `fixedbitset`.
//!
//! A counting global allocator measures the peak of live heap bytes, so this
//! file is its own test binary with a single test.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bloom::{BlockedBloomFilter, BloomFilter};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` with the same arguments; the
// counters are bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(live, Ordering::SeqCst);
        // SAFETY: as documented on the impl.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(live, Ordering::SeqCst);
        // SAFETY: as documented on the impl.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: as documented on the impl.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak of live heap bytes above the level at the start, during `f`.
fn peak_during<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let result = f();
    (PEAK.load(Ordering::SeqCst) - base, result)
}

#[test]
fn tables_are_allocated_once() {
    const TABLE: usize = 8 << 20; // bytes
    let bits = TABLE as u64 * 8;

    // The table is allocated once: allocating a zeroed vector and copying
    // it into the bit set would hold twice the memory at the peak, and the
    // second allocation, the one kept, could only abort on failure.
    let (peak, filter) = peak_during(|| BloomFilter::with_bits(bits, 7).unwrap());
    assert!(peak < TABLE + TABLE / 8, "with_bits peaked at {peak} bytes");

    // Loading holds the input and the decoded words; it used to hold a third
    // copy (the fallible vector) beside fixedbitset's.
    let bytes = filter.to_bytes();
    drop(filter);
    let (peak, _) = peak_during(|| BloomFilter::from_bytes(&bytes).unwrap());
    assert!(
        peak < 2 * TABLE + TABLE / 8,
        "from_bytes peaked at {peak} bytes"
    );

    // The blocked filter keeps the fallible vector itself.
    let (peak, blocked) = peak_during(|| BlockedBloomFilter::with_blocks(bits / 256).unwrap());
    assert!(
        peak < TABLE + TABLE / 8,
        "blocked with_blocks peaked at {peak} bytes"
    );
    let bytes = blocked.to_bytes();
    drop(blocked);
    let (peak, _) = peak_during(|| BlockedBloomFilter::from_bytes(&bytes).unwrap());
    assert!(
        peak < 2 * TABLE + TABLE / 8,
        "blocked from_bytes peaked at {peak} bytes"
    );
}
