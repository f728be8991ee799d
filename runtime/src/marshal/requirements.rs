//! What the compiled code assumes of a call beyond each argument's own check: an
//! integer argument a multiple of a vector width (the signature's assumptions) and a
//! tensor's address a multiple of an access size (its alignments, 16 bytes for a
//! 128-bit access). Worked out once per signature into one list, checked in one pass
//! per call: assumptions first, then alignments, each in the signature's order.
//!
//! A requirement that can never fail (a multiple or alignment of 0, an assumption about
//! a parameter that is not an integer, whose value the checks read as 0) is dropped;
//! one that names a parameter it cannot (past the declared parameters, or an alignment
//! of a parameter that is not a tensor) fails every call, as it always did.

use kir::{ParamKind, Signature};

use super::{CallArg, PlanError, declared_params};

/// One check of a call.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Requirement {
    /// Integer parameter `param` must be a multiple of `multiple`.
    Multiple {
        param: usize,
        multiple: i64,
        reason: String,
    },
    /// Tensor parameter `param` must start at a multiple of `bytes`.
    Aligned {
        param: usize,
        bytes: u32,
        reason: String,
    },
    /// The signature names a parameter it cannot: this message.
    Broken(String),
}

/// The requirements of `signature`, in the order they are checked.
pub(super) fn requirements(signature: &Signature) -> Vec<Requirement> {
    let kernel = &signature.name;
    let declared = declared_params(signature);
    let kind = |param: usize| {
        signature.params[..declared]
            .get(param)
            .map(|param| &param.kind)
    };
    let assumptions = signature.assumptions.iter().filter_map(|assumption| {
        let param = assumption.param;
        match kind(param) {
            None => Some(Requirement::Broken(format!(
                "`{kernel}`: an assumption names parameter {param}, which does not exist"
            ))),
            Some(ParamKind::Int(_)) if assumption.multiple != 0 => Some(Requirement::Multiple {
                param,
                multiple: assumption.multiple,
                reason: assumption.reason.clone(),
            }),
            Some(_) => None,
        }
    });
    let alignments = signature.alignments.iter().filter_map(|alignment| {
        let param = alignment.param;
        match kind(param) {
            Some(ParamKind::Tensor { .. }) if alignment.bytes == 0 => None,
            Some(ParamKind::Tensor { .. }) => Some(Requirement::Aligned {
                param,
                bytes: alignment.bytes,
                reason: alignment.reason.clone(),
            }),
            _ => Some(Requirement::Broken(format!(
                "`{kernel}`: an alignment names parameter {param}, which is not a tensor"
            ))),
        }
    });
    assumptions.chain(alignments).collect()
}

/// Checks `requirements` of a call of `signature` whose arguments, each already checked
/// against its parameter, are `args`, with the integers `ints` by parameter index.
pub(super) fn check(
    requirements: &[Requirement],
    signature: &Signature,
    args: &[CallArg<'_>],
    ints: &[i64],
) -> Result<(), PlanError> {
    let kernel = &signature.name;
    for requirement in requirements {
        match requirement {
            Requirement::Multiple {
                param,
                multiple,
                reason,
            } => {
                let value = ints[*param];
                if value % multiple != 0 {
                    return Err(PlanError {
                        param: Some(*param),
                        message: format!(
                            "`{kernel}`: `{}` = {value} must be a multiple of {multiple}: {reason}",
                            signature.params[*param].name
                        ),
                    });
                }
            }
            Requirement::Aligned {
                param,
                bytes,
                reason,
            } => {
                let CallArg::Tensor { address, .. } = args[*param] else {
                    continue;
                };
                if address % u64::from(*bytes) != 0 {
                    return Err(PlanError {
                        param: Some(*param),
                        message: format!(
                            "`{kernel}`: `{}` starts at address {address:#x}, which is not a multiple of {bytes} bytes: {reason}",
                            signature.params[*param].name
                        ),
                    });
                }
            }
            Requirement::Broken(message) => {
                return Err(PlanError {
                    param: None,
                    message: message.clone(),
                });
            }
        }
    }
    Ok(())
}
