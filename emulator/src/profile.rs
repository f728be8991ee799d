//! What a launch's instructions did, by source span, when asked (`cukc profile`): the
//! thread-instructions executed, the bytes loads, stores and `cp.async` read and wrote
//! in global and shared memory, and for shared memory the wavefronts its warps'
//! requests take against the fewest they could (bank conflicts).
//!
//! A warp's request is the accesses of one instruction by the lanes of one warp at the
//! same occurrence (each lane's n-th execution of it): the emulator runs threads one
//! after another, not in lockstep, so the lanes are grouped afterwards. Shared memory
//! has 32 banks of 4 bytes; a request of w bytes a lane is served in w / 4 phases of 32
//! / (w / 4) lanes (at least one phase), and a phase takes as many wavefronts as the
//! most distinct 4-byte words any one bank holds among its lanes' accesses (several
//! lanes reading one word is a broadcast, not a conflict).

use std::collections::HashMap;

use lang::Span;

/// Banks of shared memory, each 4 bytes wide.
const BANKS: u64 = 32;

/// One span's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Thread-instructions executed.
    pub executed: u64,
    /// Bytes read from global memory.
    pub global_read: u64,
    /// Bytes written to global memory.
    pub global_written: u64,
    /// Bytes read from or written to shared memory by loads and stores.
    pub shared_bytes: u64,
    /// Warp requests to shared memory.
    pub shared_requests: u64,
    /// Wavefronts those requests took.
    pub shared_wavefronts: u64,
    /// Wavefronts they would take without bank conflicts.
    pub shared_ideal: u64,
}

impl Counts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Counts) {
        self.executed += other.executed;
        self.global_read += other.global_read;
        self.global_written += other.global_written;
        self.shared_bytes += other.shared_bytes;
        self.shared_requests += other.shared_requests;
        self.shared_wavefronts += other.shared_wavefronts;
        self.shared_ideal += other.shared_ideal;
    }
}

/// A launch's (or several launches') counts by span.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Every span that executed, with its counts.
    pub spans: HashMap<Span, Counts>,
}

impl Profile {
    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &Profile) {
        for (span, counts) in &other.spans {
            self.spans.entry(*span).or_default().add(counts);
        }
    }
}

/// One warp request being gathered: its span, bytes a lane, and each lane's address.
struct Request {
    span: Span,
    width: u32,
    lanes: Vec<(u32, u32)>,
}

/// What one block's threads did, gathered while it runs.
#[derive(Default)]
pub struct BlockProfile {
    counts: Profile,
    /// Each (thread, instruction)'s executions of a shared access so far.
    occurrences: HashMap<(u32, usize), u32>,
    /// Requests by (instruction, warp, occurrence).
    requests: HashMap<(usize, u32, u32), Request>,
}

impl BlockProfile {
    /// One thread executed the instruction at `span`.
    pub(crate) fn executed(&mut self, span: Span) {
        self.counts.spans.entry(span).or_default().executed += 1;
    }

    /// A global access of `bytes` bytes at `span`.
    pub(crate) fn global(&mut self, span: Span, bytes: usize, write: bool) {
        let counts = self.counts.spans.entry(span).or_default();
        if write {
            counts.global_written += bytes as u64;
        } else {
            counts.global_read += bytes as u64;
        }
    }

    /// Thread `thread` accessed `bytes` bytes of shared memory at `address` by the
    /// instruction `inst` (its identity) at `span`.
    pub(crate) fn shared(
        &mut self,
        inst: usize,
        span: Span,
        thread: u32,
        address: u32,
        bytes: usize,
    ) {
        self.counts.spans.entry(span).or_default().shared_bytes += bytes as u64;
        let occurrence = self.occurrences.entry((thread, inst)).or_default();
        let key = (inst, thread / 32, *occurrence);
        *occurrence += 1;
        let request = self.requests.entry(key).or_insert_with(|| Request {
            span,
            width: bytes as u32,
            lanes: Vec::new(),
        });
        request.lanes.push((thread % 32, address));
    }

    /// The block's counts, its warps' requests resolved into wavefronts.
    pub fn finish(self) -> Profile {
        let mut profile = self.counts;
        for request in self.requests.into_values() {
            let (wavefronts, ideal) = wavefronts(request.width, &request.lanes);
            let counts = profile.spans.entry(request.span).or_default();
            counts.shared_requests += 1;
            counts.shared_wavefronts += wavefronts;
            counts.shared_ideal += ideal;
        }
        profile
    }
}

/// The wavefronts a warp request of `width` bytes a lane takes at the lanes' addresses,
/// and the fewest it could take.
pub fn wavefronts(width: u32, lanes: &[(u32, u32)]) -> (u64, u64) {
    let words_per_lane = u64::from(width.div_ceil(4).max(1));
    let phases = words_per_lane.min(BANKS);
    let lanes_per_phase = (32 / phases).max(1);
    let mut total = 0;
    let mut ideal = 0;
    for phase in 0..phases {
        let mut words_by_bank: HashMap<u64, Vec<u64>> = HashMap::new();
        let mut any = false;
        for &(lane, address) in lanes {
            if u64::from(lane) / lanes_per_phase != phase {
                continue;
            }
            any = true;
            for word in 0..words_per_lane {
                let word = u64::from(address) / 4 + word;
                let bank = words_by_bank.entry(word % BANKS).or_default();
                if !bank.contains(&word) {
                    bank.push(word);
                }
            }
        }
        if any {
            total += words_by_bank
                .values()
                .map(|words| words.len() as u64)
                .max()
                .unwrap_or(1);
            ideal += 1;
        }
    }
    (total, ideal)
}

#[cfg(test)]
mod tests {
    use super::wavefronts;

    fn lanes(address: impl Fn(u32) -> u32) -> Vec<(u32, u32)> {
        (0..32).map(|lane| (lane, address(lane))).collect()
    }

    #[test]
    fn consecutive_words_take_one_wavefront_and_a_column_of_a_32_word_row_takes_32() {
        assert_eq!(wavefronts(4, &lanes(|lane| lane * 4)), (1, 1));
        // Every lane in bank 0, each a different word: 32-way.
        assert_eq!(wavefronts(4, &lanes(|lane| lane * 128)), (32, 1));
        // Stride of two words: 2-way.
        assert_eq!(wavefronts(4, &lanes(|lane| lane * 8)), (2, 1));
        // One word for all: a broadcast.
        assert_eq!(wavefronts(4, &lanes(|_| 64)), (1, 1));
    }

    #[test]
    fn wide_accesses_are_served_in_phases() {
        // 16 bytes a lane, consecutive: four phases of eight lanes, none conflicting.
        assert_eq!(wavefronts(16, &lanes(|lane| lane * 16)), (4, 4));
        // 16 bytes a lane, rows of 128 bytes apart: within a phase, eight lanes hit
        // the same four banks: 8 wavefronts a phase.
        assert_eq!(wavefronts(16, &lanes(|lane| lane * 128)), (32, 4));
        // Two bytes a lane: one phase; lanes 2i and 2i+1 share a word.
        assert_eq!(wavefronts(2, &lanes(|lane| lane * 2)), (1, 1));
        // Half a warp: one phase still.
        let half: Vec<(u32, u32)> = (0..16).map(|lane| (lane, lane * 4)).collect();
        assert_eq!(wavefronts(4, &half), (1, 1));
    }
}
