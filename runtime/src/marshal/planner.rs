//! A call checked and planned: every argument against its parameter (`values.rs`), the
//! hidden tensor maps derived, the requirements checked in one pass
//! (`requirements.rs`), and the grid and block evaluated.
//!
//! A [`Planner`] holds what depends on the signature alone, worked out once: each
//! parameter's rule with its layout's expressions prepared, the requirements, the
//! launch's expressions. A host that calls the same kernel many times keeps one (the
//! Python package, one per kernel); [`super::plan`] makes one for its call.

use std::fmt;

use kir::{HostExpr, Param, ParamKind, Signature};

use super::expr::Expr;
use super::requirements::{self, Requirement};
use super::values::{Rule, argument_value, evaluate};
use super::{
    ArgValue, CallArg, Ints, LaunchArgs, LaunchPlan, PlanError, TensorMaps, declared_params,
};
use crate::tensor_map::{TensorMapArgs, TensorMapError, tensor_map_args};

/// A kernel's signature prepared for planning its calls.
#[derive(Clone, Debug)]
pub struct Planner {
    signature: Signature,
    /// What each parameter a call passes takes: those before the hidden tensor maps.
    rules: Vec<Rule>,
    requirements: Vec<Requirement>,
    grid: [Expr; 3],
    block: [Expr; 3],
}

impl Planner {
    /// The planner of `signature`'s calls.
    pub fn new(signature: &Signature) -> Planner {
        let declared = &signature.params[..declared_params(signature)];
        let launch = &signature.launch;
        Planner {
            signature: signature.clone(),
            rules: declared
                .iter()
                .map(|param| Rule::new(&param.kind))
                .collect(),
            requirements: requirements::requirements(signature),
            grid: launch.grid.each_ref().map(Expr::new),
            block: launch.block.each_ref().map(Expr::new),
        }
    }

    /// The signature it plans calls of.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Checks a call's arguments and works out the launch, saying which parameter a
    /// failed check is about.
    pub fn plan(&self, args: &[CallArg<'_>]) -> Result<LaunchPlan, PlanError> {
        let signature = &self.signature;
        let kernel = &signature.name;
        let about = |param: usize| {
            move |message: String| PlanError {
                param: Some(param),
                message,
            }
        };
        let declared = self.rules.len();
        if args.len() != declared {
            return Err(PlanError {
                param: None,
                message: format!(
                    "`{kernel}` takes {declared} arguments, but {} were given",
                    args.len()
                ),
            });
        }
        // The integer arguments by parameter index, for the signature's expressions.
        let ints: Ints = args
            .iter()
            .map(|arg| match arg {
                CallArg::Int(value) => *value,
                CallArg::Float(_) | CallArg::Bool(_) | CallArg::Tensor { .. } => 0,
            })
            .collect();
        let mut values = LaunchArgs::with_capacity(signature.params.len());
        let mut maps = TensorMaps::new();
        for (index, ((param, rule), arg)) in (signature.params.iter().zip(&self.rules))
            .zip(args)
            .enumerate()
        {
            let value = argument_value(kernel, &param.name, rule, arg, &ints);
            values.push(value.map_err(|error| about(index)(error.to_string()))?);
        }
        for (index, param) in signature.params.iter().enumerate().skip(declared) {
            let map = hidden_map(signature, param, args, &ints).map_err(|problem| {
                about(index)(format!(
                    "`{kernel}`: the tensor map `{}`: {problem}",
                    param.name
                ))
            })?;
            values.push(ArgValue::TensorMap(map.address));
            maps.push(map);
        }
        requirements::check(&self.requirements, signature, args, &ints)?;
        let grid = dimensions(kernel, &self.grid, "grid", &ints)?;
        let cluster = signature.launch.cluster;
        whole_clusters(kernel, grid, cluster)?;
        Ok(LaunchPlan {
            args: values,
            maps,
            grid,
            block: dimensions(kernel, &self.block, "block", &ints)?,
            cluster,
            shared_bytes: signature.launch.shared_bytes,
        })
    }
}

/// Refuses a grid that is not a whole number of clusters.
fn whole_clusters(kernel: &str, grid: [u32; 3], cluster: [u32; 3]) -> Result<(), PlanError> {
    if (grid.iter().zip(cluster)).all(|(grid, cluster)| cluster != 0 && grid % cluster == 0) {
        return Ok(());
    }
    let ([x, y, z], [cx, cy, cz]) = (grid, cluster);
    Err(PlanError {
        param: None,
        message: format!(
            "`{kernel}`: the grid would be ({x}, {y}, {z}) with these arguments, not a whole number of clusters of ({cx}, {cy}, {cz}) blocks"
        ),
    })
}

/// A launch dimension (`what`: the grid or the block), each extent at least 1.
fn dimensions(
    kernel: &str,
    exprs: &[Expr; 3],
    what: &str,
    ints: &[i64],
) -> Result<[u32; 3], PlanError> {
    let unplaced = |message| PlanError {
        param: None,
        message,
    };
    let mut out = [1u32; 3];
    for (slot, expr) in out.iter_mut().zip(exprs) {
        let value = evaluate(kernel, expr, ints, &|| what.to_owned())
            .map_err(|error| unplaced(error.to_string()))?;
        *slot = u32::try_from(value)
            .ok()
            .filter(|value| *value > 0)
            .ok_or_else(|| {
                let all: Vec<String> = (exprs.iter())
                    .map(|expr| expr.evaluate(ints).map_or("?".to_owned(), |value| value.to_string()))
                    .collect();
                unplaced(format!(
                    "`{kernel}`: the {what} would be ({}) with these arguments; each extent must be at least 1",
                    all.join(", ")
                ))
            })?;
    }
    Ok(out)
}

/// Why a hidden tensor map cannot be derived from the call.
#[derive(Clone, Debug, PartialEq, Eq)]
enum HiddenMapError {
    /// A declared parameter stands among the hidden maps.
    Declared,
    /// The parameter the map describes (its index) is not a tensor argument.
    NotTensor(usize),
    /// An extent or stride expression (as written) the call's integers cannot evaluate.
    Unevaluable(String),
    /// The map would break a hardware rule.
    Rule(TensorMapError),
}

impl fmt::Display for HiddenMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HiddenMapError::Declared => f.write_str("a declared parameter after the tensor maps"),
            HiddenMapError::NotTensor(index) => {
                write!(f, "parameter {index} is not a tensor argument")
            }
            HiddenMapError::Unevaluable(expr) => write!(f, "`{expr}` cannot be evaluated"),
            HiddenMapError::Rule(error) => error.fmt(f),
        }
    }
}

/// The encoding arguments of the hidden tensor-map parameter `param` from the call's
/// tensor argument it describes.
fn hidden_map(
    signature: &Signature,
    param: &Param,
    args: &[CallArg<'_>],
    ints: &[i64],
) -> Result<TensorMapArgs, HiddenMapError> {
    let ParamKind::TensorMap(map) = &param.kind else {
        return Err(HiddenMapError::Declared);
    };
    let tensor = signature.params.get(map.tensor);
    let (
        Some(ParamKind::Tensor {
            dtype,
            shape,
            strides,
        }),
        Some(CallArg::Tensor { address, .. }),
    ) = (tensor.map(|tensor| &tensor.kind), args.get(map.tensor))
    else {
        return Err(HiddenMapError::NotTensor(map.tensor));
    };
    let evaluate = |exprs: &[HostExpr]| -> Result<Ints, HiddenMapError> {
        (exprs.iter())
            .map(|expr| {
                (expr.evaluate(ints)).ok_or_else(|| HiddenMapError::Unevaluable(expr.to_string()))
            })
            .collect()
    };
    tensor_map_args(
        map,
        *dtype,
        *address,
        (&evaluate(shape)?[..], &evaluate(strides)?[..]),
    )
    .map_err(HiddenMapError::Rule)
}
