//! How much host memory a test may still take: `MemAvailable` of `/proc/meminfo`,
//! read when a tensor is created, so that `zeros(f32, (1 << 16, 1 << 16))` on a
//! machine without that much memory ends its block with a message instead of the
//! process being killed (or aborting on a failed allocation) half-way through.
//!
//! A tensor counts its bytes and the `f64` copy reference math makes of it (see
//! [`tensor_bytes`]); under an address-space limit (`ulimit -v`), what is left of it
//! counts too; where `/proc` cannot be read, only [`crate::tensor::MAX_TENSOR_BYTES`]
//! applies.

use std::fmt;

/// The host bytes a tensor of `count` elements of `width` bytes may need: its own bytes
/// and the `f64` values of a reference computation over it.
pub fn tensor_bytes(count: u64, width: u64) -> u64 {
    count.saturating_mul(width.saturating_add(8))
}

/// The bytes available to new allocations now, or `None` when unknown: the machine's
/// `MemAvailable`, and under an address-space limit (`ulimit -v`) what is left of it,
/// whichever is smaller. A 2 GiB tensor under a 3 GB limit aborted the process on its
/// failed allocation; it is refused before allocating instead.
pub fn available() -> Option<u64> {
    let machine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| parse_mem_available(&meminfo));
    let address_space = address_space_left();
    match (machine, address_space) {
        (Some(machine), Some(left)) => Some(machine.min(left)),
        (machine, left) => machine.or(left),
    }
}

/// What is left of this process's address-space limit, or `None` without one.
fn address_space_left() -> Option<u64> {
    let limit = parse_address_space_limit(&std::fs::read_to_string("/proc/self/limits").ok()?)?;
    let used = parse_vm_size(&std::fs::read_to_string("/proc/self/status").ok()?)?;
    Some(limit.saturating_sub(used))
}

/// The soft `Max address space` of a `/proc/self/limits` text, in bytes; `None` when
/// unlimited.
fn parse_address_space_limit(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find_map(|line| line.strip_prefix("Max address space"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// `VmSize:  123456 kB` of a `/proc/self/status` text, in bytes.
fn parse_vm_size(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))?;
    let kib: u64 = line.split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `MemAvailable:  23257432 kB` of a `/proc/meminfo` text, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?;
    let mut words = line.split_whitespace();
    let amount: u64 = words.next()?.parse().ok()?;
    let unit = match words.next() {
        Some("kB") => 1024,
        None => 1,
        Some(_) => return None,
    };
    amount.checked_mul(unit)
}

/// A tensor refused because the host cannot hold it: what it is (`a f32 tensor of shape
/// (4, 4)`), the bytes it needs and those available.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortfall {
    /// The tensor, as the message opens.
    pub what: String,
    /// The bytes it needs.
    pub needed: u64,
    /// The bytes this process may still allocate.
    pub available: u64,
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} needs {:.1} GiB of host memory (with the f64 copy reference math \
             makes), more than the {:.1} GiB this process may still allocate (the machine's free memory, or what its address-space limit leaves)",
            self.what,
            gib(self.needed),
            gib(self.available)
        )
    }
}

impl std::error::Error for Shortfall {}

/// `Err` when `needed` bytes exceed `available` (when known); `what` names the tensor.
pub fn check(needed: u64, available: Option<u64>, what: &str) -> Result<(), Shortfall> {
    match available {
        Some(available) if needed > available => Err(Shortfall {
            what: what.to_owned(),
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 30)
}

#[cfg(test)]
mod tests {
    use super::{
        check, parse_address_space_limit, parse_mem_available, parse_vm_size, tensor_bytes,
    };

    #[test]
    fn the_address_space_limit_and_size_are_read_in_bytes() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max stack size            8388608              unlimited            bytes     \n\
                      Max address space         3000000000           unlimited            bytes     \n";
        assert_eq!(parse_address_space_limit(limits), Some(3_000_000_000));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(parse_address_space_limit(unlimited), None);
        assert_eq!(
            parse_vm_size("Name:\tcukc\nVmSize:\t  204800 kB\n"),
            Some(204_800 * 1024)
        );
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let meminfo = "MemTotal:       24684084 kB\n\
                       MemFree:         1210116 kB\n\
                       MemAvailable:   23257432 kB\n\
                       Buffers:          301112 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(23_257_432 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots\n"), None);
    }

    #[test]
    fn a_tensor_beyond_what_is_available_is_refused() {
        let needed = tensor_bytes(1 << 30, 4);
        assert_eq!(needed, 12 << 30);
        let refused = check(needed, Some(8 << 30), "a f32 tensor of shape (1073741824)")
            .expect_err("12 GiB do not fit in 8");
        assert_eq!(
            refused.to_string(),
            "a f32 tensor of shape (1073741824) needs 12.0 GiB of host memory (with the f64 \
             copy reference math makes), more than the 8.0 GiB this process may still allocate (the machine's free memory, or what its address-space limit leaves)"
        );
        assert!(check(needed, Some(16 << 30), "it").is_ok());
        assert!(check(needed, None, "it").is_ok());
    }
}
