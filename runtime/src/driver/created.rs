//! Tensors that host code creates, kept on the GPU across harness runs when asked.
//!
//! `cukc tune` runs the same benches at every point of a space: the same `randn` of
//! the same shape and seed, point after point. Drawing hundreds of megabytes of
//! normal numbers on the host and copying them over took most of a point's time. A
//! GPU that keeps created tensors draws and uploads each one once (its pristine
//! copy), and gives every later creation a fresh device-to-device copy of it: the data
//! is the same bytes the host would have drawn, and a kernel that writes its inputs
//! changes only its own copy.

use std::collections::HashMap;

use super::{Buffer, Gpu, GpuError};

/// The pristine copies of created tensors, by what created them.
pub(super) type Created = HashMap<String, cudarc::driver::CudaSlice<u8>>;

impl Gpu {
    /// From now on, keeps each created tensor's data on the GPU (see the module docs).
    pub fn keep_created(&mut self) {
        self.created.get_or_insert_with(HashMap::new);
    }

    /// A fresh device copy of the created tensor `key` names (its creation, element
    /// type, shape and seed), drawing its data with `bytes` the first time (a creation
    /// the caller checked); `None` when
    /// this GPU does not keep created tensors.
    pub fn created_copy(
        &mut self,
        key: &str,
        bytes: impl FnOnce() -> Vec<u8>,
    ) -> Result<Option<Buffer>, GpuError> {
        let Some(created) = &mut self.created else {
            return Ok(None);
        };
        if !created.contains_key(key) {
            let data = bytes();
            let pristine = self.stream.clone_htod(&data).map_err(|error| {
                GpuError::driver(
                    format!("cannot copy {} bytes to the GPU", data.len()),
                    error,
                )
            })?;
            created.insert(key.to_owned(), pristine);
        }
        let pristine = &created[key];
        let copy = self.stream.clone_dtod(pristine).map_err(|error| {
            GpuError::driver(
                format!("cannot copy {} bytes on the GPU", pristine.len()),
                error,
            )
        })?;
        Ok(Some(Buffer(copy)))
    }
}
