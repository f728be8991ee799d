//! The asynchronous proxy's side of a block's shared memory: the TMA boxes in flight
//! and who observed them land ([`super::flight`]), the reads of wgmma and tcgen05.mma
//! operands, and the `fence.proxy.async` a generic write needs before the asynchronous
//! proxy reads it (PTX ISA, memory consistency model, proxies: a write through the
//! generic proxy is visible to the async proxy only after a proxy fence).

use super::flight::Landing;
use super::{Accessor, SharedMemory};
use crate::fault::{Access, Pending, Trap};

impl SharedMemory {
    /// The asynchronous proxy reads for `threads` (a wgmma's warpgroup, a tcgen05.mma's
    /// issuing thread) until the next call: [`Self::peek`] checks that each observed
    /// the TMA boxes it reads.
    pub fn read_for(&mut self, threads: impl IntoIterator<Item = u32>) {
        self.readers.clear();
        self.readers.extend(threads);
        self.issuers.clear();
        self.peeked.borrow_mut().clear();
    }

    /// The asynchronous proxy reads a wgmma's operands for its warpgroup, whose warps'
    /// first lanes and warp epochs `issuers` gives: as [`Self::read_for`], and
    /// [`Self::peek`] also checks that each byte's last plain write happened before
    /// every warp's issue. The four warps issue the wgmma apart (`.sync` waits for the
    /// warp only), so a store by one thread of the warpgroup needs a barrier before the
    /// others' issue, as one for a load would: the proxy fence orders the writer's own
    /// stores only.
    pub fn read_for_warpgroup(&mut self, issuers: &[(u32, u32)]) {
        self.read_for(issuers.iter().map(|(thread, _)| *thread));
        self.issuers.extend_from_slice(issuers);
    }

    /// The asynchronous proxy starts reading another operand.
    pub fn next_operand(&self) {
        self.peeked.borrow_mut().push((u32::MAX, 0));
    }

    /// The first and last byte of each operand [`Self::peek`] read since
    /// [`Self::read_for`].
    pub fn peeked(&self) -> Vec<(u32, u32)> {
        let peeked = self.peeked.borrow();
        peeked
            .iter()
            .copied()
            .filter(|(first, last)| first <= last)
            .collect()
    }

    /// Reads `out.len()` bytes at `address` as the asynchronous proxy does (wgmma's
    /// operands): bounds and TMA boxes the readers have not observed only, not recorded
    /// for the race checks, which the mbarriers and wgmma waits that order it are
    /// outside of.
    pub fn peek(&self, address: u32, out: &mut [u8]) -> Result<(), Trap> {
        let start = self.range(address, out.len(), Access::AsyncRead)?;
        let last = address + out.len() as u32 - 1;
        if let Some((first, end)) = self.peeked.borrow_mut().last_mut() {
            (*first, *end) = ((*first).min(address), (*end).max(last));
        }
        for index in start..start + out.len() {
            let landing = self.shadow[index].landing;
            if landing != 0 {
                for reader in &self.readers {
                    self.landed(*reader, landing, Access::WgmmaRead, index)?;
                }
            }
            self.fenced(index, Access::WgmmaRead)?;
            self.issued_after_write(index)?;
        }
        out.copy_from_slice(&self.bytes[start..start + out.len()]);
        Ok(())
    }

    /// Checks that TMA box `landing`, which last wrote byte `index`, is `thread`'s to
    /// access: landed, and its phase observed.
    pub(super) fn landed(
        &self,
        thread: u32,
        landing: u32,
        access: Access,
        index: usize,
    ) -> Result<(), Trap> {
        let box_ = self.flights.get(landing);
        let pending = match box_.phase {
            None => Pending::TmaInFlight,
            Some(phase) if !self.flights.observes(thread, box_.barrier, phase) => {
                Pending::TmaUnobserved
            }
            Some(_) => return Ok(()),
        };
        Err(Trap::Early {
            access,
            address: index as u32,
            pending,
            other_thread: box_.thread,
            other_span: box_.span,
        })
    }

    /// `who` issues a TMA load of `image` to `start`, whose bytes complete on the
    /// mbarrier at `barrier`: in flight until its phase completes
    /// ([`Self::phase_completed`]); checked now against what may still read or write
    /// the box, and, when `who` is a thread of this block (`local`), against an earlier
    /// box it has not seen delivered (nothing orders the two writes).
    pub fn tma_load(
        &mut self,
        who: &Accessor,
        (start, image): (u32, Vec<u8>),
        barrier: u32,
        local: bool,
    ) -> Result<(), Trap> {
        // In 16-byte pieces: a box starts at a multiple of its swizzle's period and its
        // rows are multiples of 16 bytes.
        for piece in (0..image.len()).step_by(16) {
            let len = (image.len() - piece).min(16);
            self.range(start + piece as u32, len, Access::TmaWrite)?;
        }
        let first = start as usize;
        let end = first + image.len();
        let reads = self.bulk_reads.overlaps(start, start + image.len() as u32);
        for index in first..end {
            let landing = self.shadow[index].landing;
            if landing != 0 && (local || self.flights.get(landing).phase.is_none()) {
                (self.landed(who.thread, landing, Access::TmaWrite, index)).map_err(|trap| {
                    match trap {
                        Trap::Early {
                            pending: Pending::TmaUnobserved,
                            access,
                            address,
                            other_thread,
                            other_span,
                        } => Trap::Early {
                            pending: Pending::TmaOverwrite,
                            access,
                            address,
                            other_thread,
                            other_span,
                        },
                        trap => trap,
                    }
                })?;
            }
            self.shadow[index].landing = 0;
            self.claim_read(who, index, Access::TmaWrite, reads)?;
        }
        let number = self.flights.issue(Landing {
            start,
            image,
            barrier,
            thread: who.thread,
            span: who.span,
            phase: None,
        });
        for shadow in &mut self.shadow[first..end] {
            shadow.landing = number;
        }
        Ok(())
    }

    /// The mbarrier at `barrier` has completed `phase` phases: the TMA boxes in flight
    /// on it land.
    pub fn phase_completed(&mut self, barrier: u32, phase: u32) {
        for (start, image) in self.flights.land(barrier, phase) {
            let start = start as usize;
            self.bytes[start..start + image.len()].copy_from_slice(&image);
        }
    }

    /// `thread`'s wait on the mbarrier at `barrier` passed after `phase` completed
    /// phases.
    pub fn acquire(&mut self, thread: u32, barrier: u32, phase: u32) {
        self.flights.acquire(thread, barrier, phase);
    }

    /// Whether `thread` has observed the mbarrier at `barrier` complete `phase` phases.
    pub fn observes(&self, thread: u32, barrier: u32, phase: u32) -> bool {
        self.flights.observes(thread, barrier, phase)
    }

    /// `thread` arrives on the mbarrier at `barrier`.
    pub fn release(&mut self, thread: u32, barrier: u32) {
        self.flights.release(thread, barrier);
    }

    /// Every thread of the block passed one barrier (`bar.sync`, the cluster barrier).
    pub fn share_all(&mut self) {
        self.flights.share_all();
    }

    /// `threads` passed one named barrier.
    pub fn share(&mut self, threads: &[u32]) {
        self.flights.share(threads);
    }

    /// Thread `thread` executes `fence.proxy.async`: its generic writes so far are
    /// visible to the asynchronous proxy.
    pub fn proxy_fence(&mut self, thread: u32) {
        let index = thread as usize;
        if self.fences.len() <= index {
            self.fences.resize(index + 1, 0);
        }
        self.fences[index] += 1;
    }

    /// Checks that the asynchronous proxy may read `len` bytes at `address` for `access`
    /// (a TMA store): no generic write to them lacks its `fence.proxy.async`.
    pub fn check_fenced(&self, address: u32, len: usize, access: Access) -> Result<(), Trap> {
        let start = address as usize;
        for index in start..(start + len).min(self.shadow.len()) {
            self.fenced(index, access)?;
        }
        Ok(())
    }

    /// `E0415` if byte `index`'s last write is a plain one that some warp of
    /// [`Self::read_for_warpgroup`]'s issuers may have issued its wgmma before: one of
    /// this barrier epoch by another thread (of another warp, or of the same warp in
    /// the same warp epoch).
    fn issued_after_write(&self, index: usize) -> Result<(), Trap> {
        let write = &self.shadow[index].write;
        let plain = matches!(
            write.access,
            Some(Access::Store | Access::Atomic | Access::AsyncWrite)
        );
        if !plain {
            return Ok(());
        }
        for &(thread, warp_epoch) in &self.issuers {
            let issuer = Accessor {
                thread,
                warp_epoch,
                span: write.span,
            };
            if self.concurrent(write, &issuer) {
                return Err(Trap::Early {
                    access: Access::WgmmaRead,
                    address: index as u32,
                    pending: Pending::WarpgroupBarrier,
                    other_thread: write.thread,
                    other_span: write.span,
                });
            }
        }
        Ok(())
    }

    /// `E0415` if byte `index`'s last write went through the generic proxy (a store, an
    /// atomic, a cp.async) and its thread has not fenced the proxies since.
    fn fenced(&self, index: usize, access: Access) -> Result<(), Trap> {
        let write = &self.shadow[index].write;
        let generic = matches!(
            write.access,
            Some(Access::Store | Access::Atomic | Access::AsyncWrite)
        );
        if !generic || write.epoch == 0 {
            return Ok(());
        }
        let fences = self.fences.get(write.thread as usize).copied().unwrap_or(0);
        if fences > write.fences {
            return Ok(());
        }
        Err(Trap::Early {
            access,
            address: index as u32,
            pending: Pending::ProxyFence,
            other_thread: write.thread,
            other_span: write.span,
        })
    }

    /// `who` lands a CTA pair's TMA box `image` at `start` in the odd block, at issue
    /// (its bytes complete on the leader's barrier, whose phases this block does not
    /// see): checked for races and against an earlier pair box there that no pair MMA
    /// has read yet, which nothing has released for the producer to overwrite.
    pub fn pair_load(&mut self, who: &Accessor, (start, image): (u32, &[u8])) -> Result<(), Trap> {
        let end = start + image.len() as u32;
        let unread =
            (self.unread_pair_boxes.iter()).find(|(first, last, ..)| *first < end && start < *last);
        if let Some(&(first, _, other_thread, other_span)) = unread {
            return Err(Trap::Early {
                access: Access::TmaWrite,
                address: first.max(start),
                pending: Pending::TmaOverwrite,
                other_thread,
                other_span,
            });
        }
        for (piece, bytes) in (0u32..).zip(image.chunks(16)) {
            self.write(who, start + 16 * piece, bytes, Access::TmaWrite)?;
        }
        (self.unread_pair_boxes).push((start, end, who.thread, who.span));
        Ok(())
    }

    /// A pair MMA read the bytes [`Self::peeked`] gives: the pair boxes there are read.
    pub fn pair_boxes_read(&mut self) {
        if self.unread_pair_boxes.is_empty() {
            return;
        }
        let read = self.peeked();
        (self.unread_pair_boxes).retain(|(first, end, ..)| {
            !read
                .iter()
                .any(|(start, last)| start < end && first <= last)
        });
    }

    /// `thread`'s tcgen05.mmas so far are committed to the mbarrier at `barrier`, which
    /// has completed `completed` phases: their shared operands are read until its next
    /// phase completes, and may be written by a thread that observed it.
    pub fn umma_commit(&mut self, thread: u32, barrier: u32, completed: u32) {
        (self.bulk_reads).commit(thread, (barrier, completed + 1));
    }
}
