//! The loop behind a [`Batch`](crate::batch::Batch)'s
//! [chunks](crate::batch#chunks): its hashes answered [`LOOKAHEAD`] at a
//! time by a generic function compiled for AVX2, into which the filter's
//! lookup and the source iterator (the caller's hashing included) are
//! inlined.
//!
//! Why `unsafe` here: calling a function compiled for AVX2 is only sound on
//! a CPU that has it. [`Vector::detect`] checks, once per batch, and only
//! it makes a [`Vector`], which every call into the loop takes; so the
//! `unsafe` blocks, the calls (one per mode), need no promise from their
//! callers. The loop itself does nothing unsafe: it calls the filter's own
//! `lookup_hash` and `prefetch_hash`, key by key, in the order a batch
//! answering one key per call would.

#![allow(unsafe_code)]

use crate::batch::{LOOKAHEAD, Lookahead};

/// Proof that this CPU runs the chunk loop (x86-64 with AVX2): only
/// [`Vector::detect`] makes one, and only after checking.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vector(());

impl Vector {
    /// `Some` where the CPU runs the chunk loop.
    pub(crate) fn detect() -> Option<Vector> {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        avx2.then_some(Vector(()))
    }
}

/// Answers the next hashes of `hashes` into `answers[..n]` and returns `n`:
/// [`LOOKAHEAD`], or fewer when the source runs dry (0 once it is empty and
/// nothing is pending). With `prefetch`, `ring[..*pending]` holds the hashes
/// taken and prefetched earlier, oldest first (see the module docs).
#[inline]
pub(crate) fn answer_next<F, I>(
    vector: Vector,
    filter: &F,
    hashes: &mut I,
    prefetch: bool,
    ring: &mut [u64; LOOKAHEAD],
    pending: &mut usize,
    answers: &mut [bool; LOOKAHEAD],
) -> usize
where
    F: Lookahead + ?Sized,
    I: Iterator<Item = u64>,
{
    let Vector(()) = vector;
    if prefetch {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Vector` exists, so this CPU has AVX2.
        return unsafe { avx2::answer_next::<true, F, I>(filter, hashes, ring, pending, answers) };
        #[cfg(not(target_arch = "x86_64"))]
        return answer_next_body::<true, F, I>(filter, hashes, ring, pending, answers);
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as above.
    return unsafe { avx2::answer_next::<false, F, I>(filter, hashes, ring, pending, answers) };
    #[cfg(not(target_arch = "x86_64"))]
    answer_next_body::<false, F, I>(filter, hashes, ring, pending, answers)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{LOOKAHEAD, Lookahead};

    /// [`answer_next_body`](super::answer_next_body) compiled for AVX2.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn answer_next<const PREFETCH: bool, F, I>(
        filter: &F,
        hashes: &mut I,
        ring: &mut [u64; LOOKAHEAD],
        pending: &mut usize,
        answers: &mut [bool; LOOKAHEAD],
    ) -> usize
    where
        F: Lookahead + ?Sized,
        I: Iterator<Item = u64>,
    {
        super::answer_next_body::<PREFETCH, F, I>(filter, hashes, ring, pending, answers)
    }
}

/// The work of [`answer_next`], one copy per mode (`PREFETCH`, a constant so
/// that each copy has only its own loop), inlined into the function compiled
/// for AVX2.
#[inline(always)]
fn answer_next_body<const PREFETCH: bool, F, I>(
    filter: &F,
    hashes: &mut I,
    ring: &mut [u64; LOOKAHEAD],
    pending: &mut usize,
    answers: &mut [bool; LOOKAHEAD],
) -> usize
where
    F: Lookahead + ?Sized,
    I: Iterator<Item = u64>,
{
    if PREFETCH {
        answer_prefetched(filter, hashes, ring, pending, answers)
    } else {
        answer(filter, hashes, answers)
    }
}

/// Takes up to [`LOOKAHEAD`] hashes and answers each as it is taken.
#[inline(always)]
fn answer<F, I>(filter: &F, hashes: &mut I, answers: &mut [bool; LOOKAHEAD]) -> usize
where
    F: Lookahead + ?Sized,
    I: Iterator<Item = u64>,
{
    let mut taken = 0;
    for answer in answers.iter_mut() {
        let Some(hash) = hashes.next() else {
            break;
        };
        *answer = filter.lookup_hash(hash);
        taken += 1;
    }
    taken
}

/// The ring's way, [`LOOKAHEAD`] steps at a time: each step answers the
/// oldest hash of the ring and puts a new one, prefetched, in its slot, as
/// [`Batch`](crate::batch::Batch) does one step per answer. `ring[..*pending]`
/// holds the hashes taken but not answered, oldest first; the ring is full
/// except at the start and at the end of the source.
#[inline(always)]
fn answer_prefetched<F, I>(
    filter: &F,
    hashes: &mut I,
    ring: &mut [u64; LOOKAHEAD],
    pending: &mut usize,
    answers: &mut [bool; LOOKAHEAD],
) -> usize
where
    F: Lookahead + ?Sized,
    I: Iterator<Item = u64>,
{
    if *pending == 0 {
        // The start (or the end): fill the ring.
        for slot in ring.iter_mut() {
            let Some(hash) = hashes.next() else {
                break;
            };
            filter.prefetch_hash(hash);
            *slot = hash;
            *pending += 1;
        }
    }
    if *pending < LOOKAHEAD {
        // The source ran dry: answer what is left.
        let left = std::mem::take(pending);
        for (answer, &hash) in answers.iter_mut().zip(&ring[..left]) {
            *answer = filter.lookup_hash(hash);
        }
        return left;
    }
    for i in 0..LOOKAHEAD {
        answers[i] = filter.lookup_hash(ring[i]);
        let Some(hash) = hashes.next() else {
            // The source ran dry: answer the rest of the ring now, and keep
            // the new hashes before slot i, oldest first, for the next call.
            for (answer, &old) in answers[i + 1..].iter_mut().zip(&ring[i + 1..]) {
                *answer = filter.lookup_hash(old);
            }
            *pending = i;
            return LOOKAHEAD;
        };
        filter.prefetch_hash(hash);
        ring[i] = hash;
    }
    LOOKAHEAD
}
