//! What a call expression can name: a built-in, a device function, a kernel or an
//! atom template, each an item of a module the checker knows.

use crate::builtins::table::Builtin;

/// A reference to an item of a module the checker knows (the user's file or a
/// stdlib module).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ItemId {
    /// Index of the module.
    pub module: usize,
    /// Index of the item inside the module.
    pub item: usize,
    /// The name users know it by: `copy_tv`, `sm80::cp_async`.
    pub name: String,
}

/// Something a call expression can call.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A built-in function (`size`, `copy`, `randn`, ...).
    Builtin(&'static Builtin),
    /// A device function (`fn`).
    Function(ItemId),
    /// A kernel.
    Kernel(ItemId),
    /// An atom with const parameters, instantiated by a call with named arguments.
    AtomTemplate(ItemId),
}

impl Callee {
    /// What kind of callable this is, in words.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Callee::Builtin(_) => "built-in function",
            Callee::Function(_) => "function",
            Callee::Kernel(_) => "kernel",
            Callee::AtomTemplate(_) => "atom template",
        }
    }

    /// The callable's name.
    pub fn name(&self) -> String {
        match self {
            Callee::Builtin(builtin) => builtin.name.to_owned(),
            Callee::Function(id) | Callee::Kernel(id) | Callee::AtomTemplate(id) => id.name.clone(),
        }
    }
}
