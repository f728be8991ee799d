//! `cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size};`: a thread copies
//! 4, 8 or 16 bytes from global into shared memory without registers.
//!
//! The source is read when the thread issues the copy (so an out-of-bounds source is
//! reported at the copy's line); the bytes land in shared memory only when the thread
//! waits for the copy's group: `cp.async.commit_group` closes the copies issued since
//! the last commit into a group, and `cp.async.wait_group n` lands every committed group
//! but the `n` newest. Until then shared memory holds what it held before, as it may on
//! hardware, where nothing says when an unwaited copy arrives: a read before the wait
//! sees the old bytes (or, where nothing was written, is a read of uninitialized shared
//! memory), and the landing bytes race with other threads' accesses like any write.
//! Copies still in flight when a thread exits land then. With a `src-size` below
//! `cp-size`, only that many bytes are read and the rest are zeros; with 0, nothing is
//! read, so the source address is not checked against the allocations (CuTe's zero
//! fill of the tiles that hang over a tensor's edge points past it).

use std::collections::VecDeque;

use lang::Span;

/// A parsed `cp.async` template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpAsync {
    /// The placeholder of the shared destination address.
    pub dst: String,
    /// The placeholder of the global source address.
    pub src: String,
    /// The bytes copied (`cp-size`).
    pub bytes: u32,
    /// How many of them are read from the source.
    pub source_bytes: SourceBytes,
}

/// `src-size`: how many bytes come from the source, the rest being zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceBytes {
    /// All of them (no `src-size`).
    All,
    /// A constant.
    Constant(u32),
    /// The value of an operand.
    Operand(String),
}

/// The model of `template`, when it is a `cp.async` from global to shared memory.
pub fn parse(template: &str) -> Option<CpAsync> {
    let template = template.trim().strip_suffix(';')?;
    let (opcode, operands) = template.split_once(char::is_whitespace)?;
    let parts: Vec<&str> = opcode.split('.').collect();
    let cache = parts.get(2).copied()?;
    let spaces_ok = parts.contains(&"shared") && parts.contains(&"global");
    if !opcode.starts_with("cp.async.") || !matches!(cache, "ca" | "cg") || !spaces_ok {
        return None;
    }
    let operands: Vec<&str> = operands.split(',').map(str::trim).collect();
    let address = |text: &str| placeholder(text.strip_prefix('[')?.strip_suffix(']')?);
    let (dst, src, size) = match operands.as_slice() {
        [dst, src, size] | [dst, src, size, _] => (address(dst)?, address(src)?, size),
        _ => return None,
    };
    let bytes: u32 = size
        .parse()
        .ok()
        .filter(|bytes| matches!(bytes, 4 | 8 | 16))?;
    let source_bytes = match operands.get(3) {
        None => SourceBytes::All,
        Some(text) => match placeholder(text) {
            Some(name) => SourceBytes::Operand(name),
            None => SourceBytes::Constant(text.parse().ok().filter(|size| *size <= bytes)?),
        },
    };
    Some(CpAsync {
        dst,
        src,
        bytes,
        source_bytes,
    })
}

fn placeholder(text: &str) -> Option<String> {
    let name = text.strip_prefix('{')?.strip_suffix('}')?;
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_owned())
}

/// A copy issued and not landed yet.
#[derive(Clone, Debug)]
pub struct PendingCopy {
    /// The shared address it lands at.
    pub dst: u32,
    /// The bytes, read from the source when it was issued.
    pub data: Vec<u8>,
    /// The global bytes it read: the first, and how many.
    pub source: (u64, usize),
    /// The copy's instruction.
    pub span: Span,
}

/// One thread's copies in flight: those issued since the last commit, and the
/// committed groups, oldest first.
#[derive(Debug, Default)]
pub struct AsyncCopies {
    open: Vec<PendingCopy>,
    groups: VecDeque<Vec<PendingCopy>>,
}

impl AsyncCopies {
    /// A copy is issued.
    pub fn issue(&mut self, copy: PendingCopy) {
        self.open.push(copy);
    }

    /// `cp.async.commit_group`: the copies issued since the last one form a group.
    pub fn commit(&mut self) {
        self.groups.push_back(std::mem::take(&mut self.open));
    }

    /// `cp.async.wait_group newest`: the copies that land now, oldest first (every
    /// committed group but the `newest` latest).
    pub fn wait(&mut self, newest: usize) -> Vec<PendingCopy> {
        let landing = self.groups.len().saturating_sub(newest);
        self.groups.drain(..landing).flatten().collect()
    }

    /// Everything still in flight, when the thread exits.
    pub fn drain(&mut self) -> Vec<PendingCopy> {
        let mut all: Vec<PendingCopy> = self.groups.drain(..).flatten().collect();
        all.append(&mut self.open);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stdlib_template_and_its_variants_parse() {
        let copy = parse("cp.async.cg.shared.global [{dst}], [{src}], 16;").unwrap();
        assert_eq!(
            (copy.dst.as_str(), copy.src.as_str(), copy.bytes),
            ("dst", "src", 16)
        );
        assert_eq!(copy.source_bytes, SourceBytes::All);
        let zfill = parse("cp.async.ca.shared.global.L2::128B [{d}], [{s}], 8, {n};").unwrap();
        assert_eq!(zfill.source_bytes, SourceBytes::Operand("n".to_owned()));
        let constant = parse("cp.async.ca.shared.global [{d}], [{s}], 8, 4;").unwrap();
        assert_eq!(constant.source_bytes, SourceBytes::Constant(4));
        for other in [
            "cp.async.commit_group;",
            "cp.async.bulk.shared::cluster.global [{d}], [{s}], 16, [{bar}];",
            "cp.async.cg.shared.global [{dst}], [{src}], 12;",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{dst}}, [{src}];",
        ] {
            assert_eq!(parse(other), None, "{other}");
        }
    }

    #[test]
    fn waits_land_all_but_the_newest_groups() {
        let copy = |dst| PendingCopy {
            dst,
            data: vec![0; 4],
            source: (0, 4),
            span: Span::empty(0),
        };
        let mut copies = AsyncCopies::default();
        copies.issue(copy(0));
        copies.commit();
        copies.issue(copy(4));
        copies.commit();
        copies.issue(copy(8));
        let landed: Vec<u32> = copies.wait(1).iter().map(|copy| copy.dst).collect();
        assert_eq!(landed, vec![0]);
        assert!(copies.wait(1).is_empty());
        let rest: Vec<u32> = copies.drain().iter().map(|copy| copy.dst).collect();
        assert_eq!(rest, vec![4, 8]);
    }
}
