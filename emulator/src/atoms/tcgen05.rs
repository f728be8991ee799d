//! Blackwell's (sm_100a) tcgen05 instructions, recognised from the templates
//! `lower/src/blackwell.rs` writes: tensor-memory allocation (a whole warp, executed by
//! the block once all 32 lanes are there, on the block's [`crate::tmem::TensorMemory`]),
//! `tcgen05.commit` (one thread; an arrival on an mbarrier), and the fences and waits,
//! whose ordering the emulator's execution already gives: every tcgen05 operation
//! completes when it is issued here. A CTA pair's (`cta_group::2`) allocation and
//! release are modelled as each block's own, on its own tensor memory.

/// A tcgen05 instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tcgen05 {
    /// `tcgen05.alloc`: the warp allocates this many columns, the address to `{slot}`.
    Alloc {
        /// The columns.
        columns: u32,
    },
    /// `tcgen05.dealloc`: the warp frees this many columns at `{taddr}`.
    Dealloc {
        /// The columns.
        columns: u32,
    },
    /// `tcgen05.relinquish_alloc_permit`: the block allocates no more.
    Relinquish,
    /// `tcgen05.commit` to the mbarrier at `{bar}`: one arrival, the thread's earlier
    /// tcgen05 operations being complete.
    Commit {
        /// Whether it is a CTA pair's (`cta_group::2`): its arrivals follow the pair's
        /// MMAs, which the cluster's scheduler runs.
        pair: bool,
        /// Whether it arrives at the barrier's place in each block of the 16-bit
        /// `{mask}` (else in this block).
        multicast: bool,
    },
    /// The fences and `tcgen05.wait::st`.
    Ordering,
    /// `tcgen05.wait::ld`: the thread's loaded registers become valid.
    WaitLd,
    /// `tcgen05.mma` from shared memory, by one thread ([`crate::atoms::umma`]).
    Mma {
        /// Whether it is kind::tf32 (else kind::f16).
        tf32: bool,
        /// Whether it is a CTA pair's (`cta_group::2`, M = 256).
        pair: bool,
    },
    /// `tcgen05.ld.32x32b` (`load`) or `tcgen05.st.32x32b` of this many registers per
    /// thread, by the warp.
    Copy32x32b {
        /// Whether it loads (into `{{r}}`), else stores.
        load: bool,
        /// Registers per thread, the columns moved.
        values: u32,
    },
}

impl Tcgen05 {
    /// Whether the whole warp executes it at once.
    pub fn is_warp_collective(&self) -> bool {
        matches!(
            self,
            Tcgen05::Alloc { .. }
                | Tcgen05::Dealloc { .. }
                | Tcgen05::Relinquish
                | Tcgen05::Copy32x32b { .. }
        )
    }
}

/// The tcgen05 instruction `template` is, if it is one.
pub fn parse(template: &str) -> Option<Tcgen05> {
    let pair = template.contains("cta_group::2");
    let template = &template.replace("cta_group::2", "cta_group::1");
    if template.contains("tcgen05.mma.cta_group::1.kind::f16 ") {
        return Some(Tcgen05::Mma { tf32: false, pair });
    }
    if template.contains("tcgen05.mma.cta_group::1.kind::tf32 ") {
        return Some(Tcgen05::Mma { tf32: true, pair });
    }
    let commit = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster";
    if template.contains(&format!(
        "{commit}.multicast::cluster.b64 [{{bar}}], %mask;"
    )) {
        return Some(Tcgen05::Commit {
            pair,
            multicast: true,
        });
    }
    let mut words = template.split_whitespace();
    let head = words.next()?;
    let tcgen05 = match head {
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" => Tcgen05::Alloc {
            columns: last_immediate(template)?,
        },
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32" => Tcgen05::Dealloc {
            columns: last_immediate(template)?,
        },
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" => Tcgen05::Relinquish,
        _ if head == format!("{commit}.b64") => Tcgen05::Commit {
            pair,
            multicast: false,
        },
        "tcgen05.fence::before_thread_sync;"
        | "tcgen05.fence::after_thread_sync;"
        | "tcgen05.wait::st.sync.aligned;" => Tcgen05::Ordering,
        "tcgen05.wait::ld.sync.aligned;" => Tcgen05::WaitLd,
        _ => return copy_32x32b(head),
    };
    Some(tcgen05)
}

/// `tcgen05.ld.sync.aligned.32x32b.x16.b32` or the `st` form.
fn copy_32x32b(head: &str) -> Option<Tcgen05> {
    let (load, rest) = match head.strip_prefix("tcgen05.ld.sync.aligned.32x32b.x") {
        Some(rest) => (true, rest),
        None => (
            false,
            head.strip_prefix("tcgen05.st.sync.aligned.32x32b.x")?,
        ),
    };
    let values: u32 = rest.strip_suffix(".b32")?.parse().ok()?;
    (values.is_power_of_two() && values <= 128).then_some(Tcgen05::Copy32x32b { load, values })
}

/// The immediate after a template's last comma: `..., 128;` is 128.
fn last_immediate(template: &str) -> Option<u32> {
    let (_, last) = template.trim().trim_end_matches(';').rsplit_once(',')?;
    last.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowered_templates_are_recognised() {
        let alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{slot}], 128;";
        assert_eq!(parse(alloc), Some(Tcgen05::Alloc { columns: 128 }));
        let dealloc = "tcgen05.dealloc.cta_group::1.sync.aligned.b32 {taddr}, 512;";
        assert_eq!(parse(dealloc), Some(Tcgen05::Dealloc { columns: 512 }));
        let commit =
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{bar}];";
        let single = Tcgen05::Commit {
            pair: false,
            multicast: false,
        };
        assert_eq!(parse(commit), Some(single.clone()));
        let multicast = "{{ .reg .b16 %mask; cvt.u16.u32 %mask, {mask}; tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{bar}], %mask; }}";
        let pair = Tcgen05::Commit {
            pair: true,
            multicast: true,
        };
        assert_eq!(parse(multicast), Some(pair));
        assert_eq!(
            parse("tcgen05.wait::ld.sync.aligned;"),
            Some(Tcgen05::WaitLd)
        );
        assert!(Tcgen05::Relinquish.is_warp_collective() && !single.is_warp_collective());
        let mma = "{{ .reg .pred %accumulate; setp.ne.b32 %accumulate, {accumulate}, 0; tcgen05.mma.cta_group::1.kind::f16 [{taddr}], {desc_a}, {desc_b}, {idesc}, %accumulate; }}";
        let f16 = Tcgen05::Mma {
            tf32: false,
            pair: false,
        };
        assert_eq!(parse(mma), Some(f16));
        let tf32 = mma.replace("kind::f16", "kind::tf32");
        let tf32_model = Tcgen05::Mma {
            tf32: true,
            pair: false,
        };
        assert_eq!(parse(&tf32), Some(tf32_model));
        let pair = mma.replace("cta_group::1", "cta_group::2");
        let pair_model = Tcgen05::Mma {
            tf32: false,
            pair: true,
        };
        assert_eq!(parse(&pair), Some(pair_model));
        let load = "tcgen05.ld.sync.aligned.32x32b.x32.b32 {{r}}, [{taddr}];";
        assert_eq!(
            parse(load),
            Some(Tcgen05::Copy32x32b {
                load: true,
                values: 32
            })
        );
        let store = "tcgen05.st.sync.aligned.32x32b.x4.b32 [{taddr}], {{r}};";
        assert_eq!(
            parse(store),
            Some(Tcgen05::Copy32x32b {
                load: false,
                values: 4
            })
        );
        assert_eq!(
            parse("tcgen05.ld.sync.aligned.32x32b.x3.b32 {{r}}, [{taddr}];"),
            None
        );
        assert_eq!(
            parse("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [{slot}], 32;"),
            Some(Tcgen05::Alloc { columns: 32 })
        );
        assert_eq!(parse("tcgen05.shift.cta_group::1.down [0];"), None);
    }
}
