//! A point made into a module: the tuned kernel's const parameters default to the
//! point's values, so every call that does not name them (the benches') compiles the
//! point. For timing, only the benches of the block are kept (no tests, no other
//! benches, no tune blocks), so only the instantiations they call are compiled.

use lang::ast::{Item, ItemKind, Module};

use crate::space::Point;

/// `module` with the const parameters of kernel `kernel` that `point` gives defaulting
/// to its values; with `only_benches`, the module keeps no `test` or `tune` block
/// and only the benches named there.
pub fn specialise(
    module: &Module,
    kernel: &str,
    point: &Point,
    only_benches: Option<&[&str]>,
) -> Module {
    let keep = |item: &Item| match (&item.kind, only_benches) {
        (_, None) => true,
        (ItemKind::Test(_) | ItemKind::Tune(_), Some(_)) => false,
        (ItemKind::Bench(bench), Some(names)) => names.contains(&bench.name.text.as_str()),
        (_, Some(_)) => true,
    };
    let items = (module.items.iter().filter(|item| keep(item)))
        .map(|item| match &item.kind {
            ItemKind::Kernel(found) if found.name.text == kernel => {
                let mut tuned = found.clone();
                for generic in &mut tuned.generics {
                    if let Some(value) = point.value(&generic.name.text) {
                        generic.default = Some(value.to_expr(generic.span));
                    }
                }
                Item {
                    kind: ItemKind::Kernel(tuned),
                    span: item.span,
                }
            }
            _ => item.clone(),
        })
        .collect();
    Module { items }
}
