//! A block's tensor memory (sm_100a): 128 lanes of 512 32-bit columns
//! (HOPPER-BLACKWELL.md D.2, CUTLASS's `TMEM::Allocator1Sm` capacity), its words and
//! its allocator; a word outside every live allocation is not read or written (E0413). A warp allocates a power of two of columns, 32 to 512; the address it
//! gets has the lane (0) in bits 31-16 and the first column in bits 15-0. The model
//! faults (E0413) where the PTX ISA leaves the program wrong: an allocation after the
//! block gave up its permit (`tcgen05.relinquish_alloc_permit`), a release of columns
//! that are not one live allocation, and a block that exits holding tensor memory.
//! Where the hardware would wait for another warp to free columns, the model faults
//! too: it places each allocation at the lowest free multiple of 32 columns that fits,
//! and an allocation that does not fit is reported at once. The accumulators its MMAs
//! write are in flight until a commit's phase is observed ([`flight`]).

mod flight;

use lang::Span;

use crate::fault::{Access, FaultKind, Pending, Trap};
use crate::shared::SharedMemory;

pub use flight::{Accumulators, Issuer};

/// The lanes.
pub const LANES: u32 = 128;
/// The 32-bit columns of each lane.
pub const COLUMNS: u32 = 512;
/// The allocation unit, in columns.
const GRANULE: u32 = 32;

/// One live allocation: its first column, its columns, where it was made and by which
/// warp (its first thread's coordinates).
#[derive(Clone, Copy, Debug)]
struct Allocation {
    first: u32,
    columns: u32,
    span: Span,
    by: [u32; 3],
}

/// A block's tensor memory and its allocations.
pub struct TensorMemory {
    words: Vec<u32>,
    live: Vec<Allocation>,
    relinquished: bool,
    /// The accumulators of MMAs not yet handed over.
    pub accumulators: Accumulators,
}

impl Default for TensorMemory {
    fn default() -> TensorMemory {
        TensorMemory {
            words: vec![0; (LANES * COLUMNS) as usize],
            live: Vec::new(),
            relinquished: false,
            accumulators: Accumulators::default(),
        }
    }
}

impl TensorMemory {
    /// The word at `lane` and `column`, inside a live allocation.
    pub fn read(&self, lane: u32, column: u32) -> Result<u32, Trap> {
        Ok(self.words[self.word(lane, column)?])
    }

    /// Writes the word at `lane` and `column`, inside a live allocation.
    pub fn write(&mut self, lane: u32, column: u32, word: u32) -> Result<(), Trap> {
        let at = self.word(lane, column)?;
        self.words[at] = word;
        Ok(())
    }

    /// The index of the word at `lane` and `column`, checked to be allocated.
    fn word(&self, lane: u32, column: u32) -> Result<usize, Trap> {
        let allocated = (self.live.iter())
            .any(|live| (live.first..live.first + live.columns).contains(&column));
        if lane >= LANES || !allocated {
            return Err(fault(format!(
                "an access to tensor memory at lane {lane}, column {column}, which is not allocated"
            )));
        }
        Ok((lane * COLUMNS + column) as usize)
    }

    /// Allocates `columns` columns for the instruction at `span`, executed by the warp
    /// whose first thread is `by`; the address.
    pub fn allocate(&mut self, columns: u32, span: Span, by: [u32; 3]) -> Result<u32, Trap> {
        if self.relinquished {
            return Err(fault(format!(
                "an allocation of {columns} columns after the block relinquished its permit to allocate (`tmem_relinquish_alloc_permit`)"
            )));
        }
        if !columns.is_power_of_two() || !(GRANULE..=COLUMNS).contains(&columns) {
            return Err(fault(format!(
                "an allocation of {columns} columns: a power of two from 32 to 512"
            )));
        }
        let fits = |first: u32| {
            (self.live.iter())
                .all(|live| first + columns <= live.first || live.first + live.columns <= first)
        };
        let Some(first) = (0..=COLUMNS - columns)
            .step_by(GRANULE as usize)
            .find(|first| fits(*first))
        else {
            let used: u32 = self.live.iter().map(|live| live.columns).sum();
            return Err(fault(format!(
                "an allocation of {columns} columns while {used} of the block's {COLUMNS} are allocated and not freed"
            )));
        };
        self.live.push(Allocation {
            first,
            columns,
            span,
            by,
        });
        Ok(first)
    }

    /// Frees the `columns` columns at `address`.
    pub fn free(&mut self, address: u32, columns: u32) -> Result<(), Trap> {
        let (lane, first) = (address >> 16, address & 0xffff);
        let at = self
            .live
            .iter()
            .position(|live| lane == 0 && live.first == first && live.columns == columns);
        match at {
            Some(at) => {
                self.live.remove(at);
                self.accumulators.free(first, columns);
                Ok(())
            }
            None => Err(fault(format!(
                "a release of {columns} columns at tensor-memory address {address:#x} (lane {lane}, column {first}), which is not an allocation of that size"
            ))),
        }
    }

    /// E0415 if thread `reader` of the block, whose phases `shared` knows, touches
    /// (`access`) lanes and columns (first, one past the last) holding an accumulator
    /// in flight that has not been handed over to it.
    pub fn handed_over(
        &self,
        (shared, reader): (&SharedMemory, u32),
        lanes: (u32, u32),
        columns: (u32, u32),
        access: Access,
    ) -> Result<(), Trap> {
        if self.accumulators.is_empty() {
            return Ok(());
        }
        let observes = |barrier, phase| shared.observes(reader, barrier, phase);
        match self.accumulators.pending(lanes, columns, observes) {
            None => Ok(()),
            Some(accumulator) => Err(Trap::Early {
                access,
                address: lanes.0 << 16 | columns.0,
                pending: Pending::TmemAccumulator,
                other_thread: accumulator.issuer.thread,
                other_span: accumulator.span,
            }),
        }
    }

    /// The block gives up its permit to allocate.
    pub fn relinquish(&mut self) {
        self.relinquished = true;
    }

    /// The fault for an allocation the block has not freed when it exits, with the
    /// allocation's span and its warp's first thread.
    pub fn leak(&self) -> Option<(FaultKind, Span, [u32; 3])> {
        let live = self.live.first()?;
        let kind = FaultKind::Tmem(format!(
            "{} columns of tensor memory (from column {}) allocated here and not freed when the block exited (`tmem_dealloc` them first)",
            live.columns, live.first
        ));
        Some((kind, live.span, live.by))
    }
}

fn fault(what: String) -> Trap {
    Trap::Fault(FaultKind::Tmem(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_take_the_lowest_free_columns_and_faults_name_the_misuse() {
        let mut tmem = TensorMemory::default();
        let (at, by) = (Span::default(), [0, 0, 0]);
        assert_eq!(tmem.allocate(128, at, by), Ok(0));
        assert_eq!(tmem.allocate(256, at, by), Ok(128));
        assert_eq!(tmem.allocate(32, at, by), Ok(384));
        assert!(tmem.allocate(256, at, by).is_err());
        tmem.write(127, 383, 7).unwrap();
        assert_eq!(tmem.read(127, 383), Ok(7));
        assert!(tmem.read(128, 0).is_err() && tmem.write(0, 416, 1).is_err());
        assert!(
            tmem.free(128, 128).is_err(),
            "a size the allocation does not have"
        );
        assert!(tmem.free(64, 32).is_err(), "inside an allocation");
        tmem.free(0, 128).unwrap();
        assert_eq!(tmem.allocate(64, at, by), Ok(0));
        assert!(tmem.leak().is_some());
        tmem.free(0, 64).unwrap();
        tmem.free(128, 256).unwrap();
        tmem.free(384, 32).unwrap();
        assert!(tmem.leak().is_none());
        tmem.relinquish();
        assert!(tmem.allocate(32, at, by).is_err());
    }
}
