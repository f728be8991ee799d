//! Emulated global memory: the host's allocations at 64-bit addresses, each a run of
//! bytes that every block of a launch may read and write at once.
//!
//! Allocations start at [`FIRST_ADDRESS`], each at a 256-byte boundary (as
//! `cudaMalloc`'s are) with at least [`GAP`] unallocated bytes after it, so an access a
//! little past one allocation never lands in the next: it is out of bounds, reported
//! against the allocation it strayed from. Only the allocations' own bytes are stored;
//! nothing is kept per byte beside them, so a launch over large tensors costs their
//! size and no more. Bytes are atomics (relaxed), so blocks running on several cores
//! share them without locks; a read-modify-write (`atom`) is only atomic when blocks run
//! one at a time, which [`crate::run`] ensures for kernels that have one.

use std::sync::atomic::{AtomicU8, Ordering};

/// The address of the first allocation: above 4 GiB, so a 32-bit truncation of an
/// address is never a valid one.
pub const FIRST_ADDRESS: u64 = 0x1_0000_0000;

/// The least number of unallocated bytes after each allocation.
pub const GAP: u64 = 4096;

/// Where an allocation is: its first address and its size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// The address of its first byte.
    pub base: u64,
    /// Its size in bytes.
    pub bytes: u64,
}

impl Extent {
    /// One past its last address.
    pub fn end(self) -> u64 {
        self.base + self.bytes
    }
}

/// An access that is not inside one allocation: the allocation it is nearest to (the
/// one containing its first byte, else the closest below or above it), if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The nearest allocation, if there is any.
    pub nearest: Option<Extent>,
}

struct Allocation {
    base: u64,
    bytes: Vec<AtomicU8>,
}

impl Allocation {
    fn extent(&self) -> Extent {
        Extent {
            base: self.base,
            bytes: self.bytes.len() as u64,
        }
    }
}

/// The global memory of one emulated device.
#[derive(Default)]
pub struct GlobalMemory {
    /// Sorted by base address.
    allocations: Vec<Allocation>,
}

impl GlobalMemory {
    /// Memory with no allocations.
    pub fn new() -> Self {
        GlobalMemory::default()
    }

    /// A new allocation holding `bytes`; its address.
    pub fn allocate(&mut self, bytes: &[u8]) -> u64 {
        let base = match self.allocations.last() {
            None => FIRST_ADDRESS,
            Some(last) => (last.extent().end() + GAP).next_multiple_of(256),
        };
        self.allocations.push(Allocation {
            base,
            bytes: bytes.iter().map(|byte| AtomicU8::new(*byte)).collect(),
        });
        base
    }

    /// The allocation containing `address`, if any.
    pub fn extent(&self, address: u64) -> Option<Extent> {
        self.containing(address)
            .map(|index| self.allocations[index].extent())
    }

    /// A copy of `len` bytes at `address`, all inside one allocation.
    pub fn read(&self, address: u64, len: usize) -> Result<Vec<u8>, OutOfBounds> {
        let mut out = vec![0; len];
        self.load(address, &mut out)?;
        Ok(out)
    }

    /// Fills `out` from `address` (a kernel's load).
    pub(crate) fn load(&self, address: u64, out: &mut [u8]) -> Result<(), OutOfBounds> {
        let bytes = self.bytes(address, out.len())?;
        for (target, source) in out.iter_mut().zip(bytes) {
            *target = source.load(Ordering::Relaxed);
        }
        Ok(())
    }

    /// Writes `bytes` at `address` (a kernel's store).
    pub(crate) fn store(&self, address: u64, bytes: &[u8]) -> Result<(), OutOfBounds> {
        let targets = self.bytes(address, bytes.len())?;
        for (target, source) in targets.iter().zip(bytes) {
            target.store(*source, Ordering::Relaxed);
        }
        Ok(())
    }

    /// How many allocations there are.
    pub(crate) fn allocations(&self) -> usize {
        self.allocations.len()
    }

    /// The allocation holding `address`: its index (in allocation order), the offset of
    /// `address` in it and its size.
    pub(crate) fn place(&self, address: u64) -> Option<(usize, usize, usize)> {
        let index = self.containing(address)?;
        let allocation = &self.allocations[index];
        Some((
            index,
            (address - allocation.base) as usize,
            allocation.bytes.len(),
        ))
    }

    /// A copy of allocation `index`'s bytes.
    pub(crate) fn bytes_of(&self, index: usize) -> Vec<u8> {
        (self.allocations[index].bytes.iter())
            .map(|byte| byte.load(Ordering::Relaxed))
            .collect()
    }

    /// Allocation `index`'s bytes set back to `bytes` (a copy [`Self::bytes_of`] took).
    pub(crate) fn restore(&mut self, index: usize, bytes: &[u8]) {
        for (target, source) in self.allocations[index].bytes.iter_mut().zip(bytes) {
            *target.get_mut() = *source;
        }
    }

    /// The stored bytes `address .. address + len`, when one allocation holds them all.
    fn bytes(&self, address: u64, len: usize) -> Result<&[AtomicU8], OutOfBounds> {
        let Some(index) = self.containing(address) else {
            return Err(OutOfBounds {
                nearest: self.nearest(address),
            });
        };
        let allocation = &self.allocations[index];
        let start = (address - allocation.base) as usize;
        allocation
            .bytes
            .get(start..start.saturating_add(len))
            .ok_or(OutOfBounds {
                nearest: Some(allocation.extent()),
            })
    }

    fn containing(&self, address: u64) -> Option<usize> {
        let after = self
            .allocations
            .partition_point(|allocation| allocation.base <= address);
        let index = after.checked_sub(1)?;
        (address < self.allocations[index].extent().end()).then_some(index)
    }

    /// The allocation closest to `address`, which none contains.
    fn nearest(&self, address: u64) -> Option<Extent> {
        let after = self
            .allocations
            .partition_point(|allocation| allocation.base <= address);
        let below = after
            .checked_sub(1)
            .map(|index| self.allocations[index].extent());
        let above = self.allocations.get(after).map(Allocation::extent);
        match (below, above) {
            (Some(below), Some(above)) => {
                if address - below.end() <= above.base - address {
                    Some(below)
                } else {
                    Some(above)
                }
            }
            (below, above) => below.or(above),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_apart_and_read_back() {
        let mut memory = GlobalMemory::new();
        let a = memory.allocate(&[1, 2, 3]);
        let b = memory.allocate(&[4; 300]);
        assert_eq!(a, FIRST_ADDRESS);
        assert_eq!(b % 256, 0);
        assert!(b >= a + 3 + GAP);
        assert_eq!(memory.read(a + 1, 2).unwrap(), vec![2, 3]);
        memory.store(b + 299, &[9]).unwrap();
        assert_eq!(memory.read(b + 298, 2).unwrap(), vec![4, 9]);
        assert_eq!(memory.extent(b + 10).unwrap().bytes, 300);
    }

    #[test]
    fn accesses_outside_name_the_nearest_allocation() {
        let mut memory = GlobalMemory::new();
        let a = memory.allocate(&[0; 16]);
        let b = memory.allocate(&[0; 16]);
        let past_a = memory.read(a + 12, 8).unwrap_err();
        assert_eq!(past_a.nearest.unwrap().base, a);
        let before_b = memory.read(b - 4, 4).unwrap_err();
        assert_eq!(before_b.nearest.unwrap().base, b);
        let just_after_a = memory.read(a + 20, 4).unwrap_err();
        assert_eq!(just_after_a.nearest.unwrap().base, a);
        assert_eq!(memory.read(b + 20, 1).unwrap_err().nearest.unwrap().base, b);
        assert_eq!(GlobalMemory::new().read(0, 1).unwrap_err().nearest, None);
    }
}
