//! Memory instructions in PTX: kernel parameters, loads and stores with their vector
//! width, immediate offset and narrow width (`ld.global.s8` into a 32-bit register),
//! atoms' templates filled with their operands, and atomic read-modify-writes (`red`
//! when the old value is unused, `atom` when it is).

use kir::{AtomicOp, Inst, Intrinsic, Narrow, Op, ParamKind, Scope, Space, Ty, ValueId};

use super::{EmitError, Emitter};

impl Emitter<'_, '_> {
    /// A [`Op::Load`], [`Op::Store`], [`Op::Atom`] or [`Op::Atomic`].
    pub(super) fn memory(&mut self, inst: &Inst) -> Result<(), EmitError> {
        let guard = |predicate: &Option<ValueId>, emitter: &Self| {
            predicate.map_or(String::new(), |predicate| {
                format!("@{} ", emitter.name(predicate))
            })
        };
        let text = match &inst.op {
            Op::Load {
                space,
                address,
                offset,
                narrow,
                predicate,
            } => {
                let word = self
                    .kernel
                    .ty(*inst.results.first().ok_or("a load of nothing")?);
                let registers: Vec<&str> =
                    inst.results.iter().map(|value| self.name(*value)).collect();
                format!(
                    "{}ld.{}{}{} {}, [{}];",
                    guard(predicate, self),
                    space.name(),
                    vector(inst.results.len()),
                    narrow.map_or(memory_suffix(word), narrow_suffix),
                    braced(&registers),
                    address_text(self.name(*address), *offset)
                )
            }
            Op::Store {
                space,
                address,
                offset,
                narrow,
                values,
                predicate,
            } => {
                let word = self.kernel.ty(*values.first().ok_or("a store of nothing")?);
                let registers: Vec<&str> = values.iter().map(|value| self.name(*value)).collect();
                format!(
                    "{}st.{}{}{} [{}], {};",
                    guard(predicate, self),
                    space.name(),
                    vector(values.len()),
                    narrow.map_or(memory_suffix(word), narrow_suffix),
                    address_text(self.name(*address), *offset),
                    braced(&registers)
                )
            }
            Op::Atom {
                template,
                operands,
                registers,
                output,
                predicate,
                scope,
                ..
            } => {
                let operands: Vec<(String, String)> = operands
                    .iter()
                    .map(|(name, value, offset)| {
                        (name.clone(), address_text(self.name(*value), *offset))
                    })
                    .collect();
                let names = |values: &[ValueId]| -> Vec<String> {
                    values
                        .iter()
                        .map(|value| self.name(*value).to_owned())
                        .collect()
                };
                let mut lists: Vec<(String, Vec<String>)> = registers
                    .iter()
                    .filter(|(name, _)| Some(name) != output.as_ref())
                    .map(|(name, values)| (name.clone(), names(values)))
                    .collect();
                if let Some(output) = output {
                    lists.push((output.clone(), names(&inst.results)));
                }
                if let Some(inputs) = super::tied::in_place_inputs(&inst.op) {
                    self.copy_in_place_inputs(inputs, &inst.results, *scope)
                        .ok_or("an in-place atom's fence has no PTX")?;
                }
                format!(
                    "{}{}",
                    guard(predicate, self),
                    fill_template(template, &operands, &lists)?
                )
            }
            Op::Atomic {
                op,
                space,
                address,
                offset,
                value,
            } => {
                let target = address_text(self.name(*address), *offset);
                return self.atomic(*op, *space, &target, *value, inst.results.first());
            }
            _ => return Err("not a memory instruction".into()),
        };
        self.emit(&text);
        Ok(())
    }

    /// Copies each input of an in-place atom into its result's register where the two
    /// differ (the input is used again later); a warpgroup's atom (wgmma) then needs a
    /// fence after them.
    fn copy_in_place_inputs(
        &mut self,
        inputs: &[ValueId],
        results: &[ValueId],
        scope: Scope,
    ) -> Option<()> {
        let mut copied = false;
        for (input, result) in inputs.iter().zip(results) {
            if self.name(*input) != self.name(*result) {
                let ty = self.kernel.ty(*result);
                let text = format!(
                    "mov{} {}, {};",
                    memory_suffix(ty),
                    self.name(*result),
                    self.name(*input)
                );
                self.emit(&text);
                copied = true;
            }
        }
        if copied && scope == Scope::Warpgroup {
            self.intrinsic(&Intrinsic::WgmmaFence, &[], &[])?;
        }
        Some(())
    }

    /// `red` (no result) or `atom` (the old value into `result`) at `target`.
    fn atomic(
        &mut self,
        op: AtomicOp,
        space: Space,
        target: &str,
        value: ValueId,
        result: Option<&ValueId>,
    ) -> Result<(), EmitError> {
        let ty = self.kernel.ty(value);
        let instruction = if result.is_some() { "atom" } else { "red" };
        let (space, name) = (space.name(), op.name());
        let suffix = match (op, ty) {
            (_, Ty::I32) => ".s32",
            // PTX has no signed 64-bit add; in two's complement it is the unsigned one.
            (AtomicOp::Add, Ty::I64) => ".u64",
            (_, Ty::I64) => ".s64",
            (_, Ty::U32) => ".u32",
            (_, Ty::U64) => ".u64",
            (AtomicOp::Add, Ty::F32) => ".f32",
            (AtomicOp::Max | AtomicOp::Min, Ty::F32) => {
                return self.float_extremum(op, instruction, space, target, value, result);
            }
            (_, other) => return Err(format!("an atomic {name} of {}", other.name()).into()),
        };
        let old = result.map_or(String::new(), |result| format!("{}, ", self.name(*result)));
        let text = format!(
            "{instruction}.{space}.{name}{suffix} {old}[{target}], {};",
            self.operand(value)
        );
        self.emit(&text);
        Ok(())
    }

    /// An f32 atomic max or min, which PTX lacks (ptxas 12.9 refuses
    /// `red.global.max.f32` on every target), done on the float's bits: ordered as
    /// signed integers they order the non-negative floats, and ordered as unsigned
    /// integers they order the negative ones backwards, while every non-negative
    /// float's bits are below every negative one's as unsigned and above them as
    /// signed. So the max of a value with its sign bit clear is `max.s32` of the bits,
    /// and with it set `min.u32` (the min mirrors it). Exact for every float but NaN;
    /// choosing by the sign bit rather than `>= 0` keeps -0.0 on the negative side.
    fn float_extremum(
        &mut self,
        op: AtomicOp,
        instruction: &str,
        space: &str,
        target: &str,
        value: ValueId,
        result: Option<&ValueId>,
    ) -> Result<(), EmitError> {
        let bits = self.scratch(Ty::I32);
        let non_negative = self.scratch(Ty::Pred);
        let old_bits = result.map(|_| self.scratch(Ty::I32));
        let old = old_bits
            .as_ref()
            .map_or(String::new(), |old| format!("{old}, "));
        let (when_non_negative, when_negative) = match op {
            AtomicOp::Max => ("max.s32", "min.u32"),
            _ => ("min.s32", "max.u32"),
        };
        let lines = [
            format!("mov.b32 {bits}, {};", self.name(value)),
            format!("setp.ge.s32 {non_negative}, {bits}, 0;"),
            format!(
                "@{non_negative} {instruction}.{space}.{when_non_negative} {old}[{target}], {bits};"
            ),
            format!(
                "@!{non_negative} {instruction}.{space}.{when_negative} {old}[{target}], {bits};"
            ),
        ];
        for line in lines {
            self.emit(&line);
        }
        if let (Some(result), Some(old_bits)) = (result, old_bits) {
            let text = format!("mov.b32 {}, {old_bits};", self.name(*result));
            self.emit(&text);
        }
        Ok(())
    }

    /// Loads the kernel's parameter `index` into `result`; a tensor's address is
    /// converted to a global one; a tensor map's value is its generic address.
    pub(super) fn parameter(&mut self, index: usize, result: ValueId) {
        let entry = &self.kernel.signature.entry;
        let kind = (self.kernel.signature.params.get(index)).map(|param| &param.kind);
        let is_tensor = matches!(kind, Some(ParamKind::Tensor { .. }));
        let d = self.name(result).to_owned();
        if let Some(ParamKind::TensorMap(_)) = kind {
            let text = format!("mov.b64 {d}, {entry}_param_{index};");
            self.emit(&text);
            self.emit(&format!("cvta.param.u64 {d}, {d};"));
            return;
        }
        let width = match self.kernel.ty(result) {
            Ty::I64 | Ty::U64 => "u64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::F16 | Ty::BF16 => "b16",
            _ => "u32",
        };
        let text = format!("ld.param.{width} {d}, [{entry}_param_{index}];");
        self.emit(&text);
        if is_tensor {
            self.emit(&format!("cvta.to.global.u64 {d}, {d};"));
        }
    }
}

fn memory_suffix(word: Ty) -> &'static str {
    match word {
        Ty::F32 => ".f32",
        Ty::F64 => ".f64",
        Ty::I32 | Ty::U32 | Ty::B32 => ".b32",
        Ty::I64 | Ty::U64 | Ty::B64 => ".b64",
        Ty::F16 | Ty::BF16 | Ty::B16 | Ty::Pred => ".b16",
    }
}

/// A narrow access of 32-bit registers: `ld` and `st` may name a register wider than
/// their type; a load then sign-extends an `.s8`/`.s16` value and zero-extends a
/// `.u8`/`.u16` one, and a store writes the register's low bits (PTX ISA, "Operand
/// Size Exceeding Instruction-Type Size").
fn narrow_suffix(narrow: Narrow) -> &'static str {
    match narrow {
        Narrow::S8 => ".s8",
        Narrow::U8 => ".u8",
        Narrow::S16 => ".s16",
        Narrow::U16 => ".u16",
    }
}

fn vector(count: usize) -> &'static str {
    match count {
        2 => ".v2",
        4 => ".v4",
        _ => "",
    }
}

fn braced(registers: &[&str]) -> String {
    if registers.len() == 1 {
        registers[0].to_owned()
    } else {
        format!("{{{}}}", registers.join(", "))
    }
}

/// `[register+offset]`'s inside; PTX writes a negative offset `+-4` (`%r1-4` is a
/// syntax error to ptxas).
pub(super) fn address_text(register: &str, offset: i64) -> String {
    match offset {
        0 => register.to_owned(),
        offset => format!("{register}+{offset}"),
    }
}

/// An atom's template with `{name}` replaced by its address operand and `{{name}}`
/// by its register list, braced (`{%r1, %r2}`); other `{{` and `}}` are braces.
pub fn fill_template(
    template: &str,
    operands: &[(String, String)],
    lists: &[(String, Vec<String>)],
) -> Result<String, EmitError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(position) = rest.find(['{', '}']) {
        out.push_str(&rest[..position]);
        let tail = &rest[position..];
        if let Some((list, after)) = register_list(tail, lists) {
            out.push('{');
            out.push_str(&list.join(", "));
            out.push('}');
            rest = after;
            continue;
        }
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push(tail.as_bytes()[0] as char);
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('}') {
            return Err(format!("an unmatched `}}` in the atom template `{template}`").into());
        }
        let Some(end) = tail.find('}') else {
            return Err(format!("an unclosed `{{` in the atom template `{template}`").into());
        };
        let name = &tail[1..end];
        let Some((_, value)) = operands.iter().find(|(operand, _)| operand == name) else {
            return Err(format!(
                "the atom template `{template}` names `{name}`, which this instruction does not provide"
            ).into());
        };
        out.push_str(value);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `{{name}}` at the start of `tail` naming one of `lists`: that list, and the text
/// after the placeholder.
fn register_list<'t, 'l>(
    tail: &'t str,
    lists: &'l [(String, Vec<String>)],
) -> Option<(&'l Vec<String>, &'t str)> {
    let inner = tail.strip_prefix("{{")?;
    let end = inner.find("}}")?;
    let name = &inner[..end];
    let (_, list) = lists.iter().find(|(known, _)| known == name)?;
    Some((list, &inner[end + 2..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_their_operands() {
        let operands = vec![
            ("dst".to_owned(), "%r3+16".to_owned()),
            ("src".to_owned(), "%rd4".to_owned()),
        ];
        assert_eq!(
            fill_template(
                "cp.async.cg.shared.global [{dst}], [{src}], 16;",
                &operands,
                &[]
            )
            .unwrap(),
            "cp.async.cg.shared.global [%r3+16], [%rd4], 16;"
        );
        assert_eq!(fill_template("x {{a}}", &[], &[]).unwrap(), "x {a}");
        let lists = vec![
            ("d".to_owned(), vec!["%f1".to_owned(), "%f2".to_owned()]),
            ("a".to_owned(), vec!["%r1".to_owned()]),
        ];
        assert_eq!(
            fill_template("mma {{d}}, {{a}}, [{dst}];", &operands, &lists).unwrap(),
            "mma {%f1, %f2}, {%r1}, [%r3+16];"
        );
        assert!(
            fill_template("x {nope}", &operands, &[])
                .unwrap_err()
                .problem
                .contains("`nope`")
        );
        assert!(
            fill_template("x {dst", &operands, &[])
                .unwrap_err()
                .problem
                .contains("unclosed")
        );
    }

    #[test]
    fn spaces_name_their_address_width() {
        assert_eq!(Space::Shared.address_ty(), Ty::I32);
        assert_eq!(address_text("%r1", -4), "%r1+-4");
    }
}
