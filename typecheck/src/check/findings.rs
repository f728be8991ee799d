//! One diagnostic per mistake across a kernel's instantiations. A file that launches a
//! kernel with four head dimensions checks four instantiations, and a TMA tile of the
//! wrong dtype is wrong in each, with different numbers: the user sees it once.
//!
//! A kernel's findings are kept by code and place. The first instantiation to find one
//! reports it, with a note naming that instantiation (and a label at the call that
//! launched it, for one a test launched); every later instantiation that finds the
//! same code at the same place, whatever its message, is named in a second note
//! instead of reported again. Within one instantiation nothing merges: two messages
//! at one place (an unrolled loop's `r[4]` and `r[5]`) are two diagnostics.

use lang::Span;
use lang::ast::Kernel;
use rustc_hash::FxHashSet;

use crate::check::Checker;
use crate::value::Value;

/// A kernel's name, a diagnostic's code and its primary span.
pub(crate) type Place = (String, &'static str, Span);

/// What a kernel's instantiations found at one [`Place`].
pub(crate) struct Finding {
    /// The index of the diagnostic kept, in the checker's diagnostics.
    pub(crate) index: usize,
    /// Where its note naming the other instantiations is, once it has one.
    note: Option<usize>,
    /// The other instantiations that found it, in the order checked.
    others: Vec<String>,
}

/// The kernel instantiation just checked.
pub(crate) struct Instantiation<'k> {
    pub(crate) kernel: &'k Kernel,
    pub(crate) const_arguments: &'k [(String, Value)],
    /// The launch that asked for it; the kernel's name for the file's own checks.
    pub(crate) call_span: Span,
}

impl Instantiation<'_> {
    /// How a note names it: `wide<W = 16>`, or the kernel with its defaults.
    fn describe(&self) -> String {
        let name = &self.kernel.name.text;
        if self.const_arguments.is_empty() {
            return format!("`{name}` with its const parameters' defaults");
        }
        let arguments: Vec<String> = (self.const_arguments.iter())
            .map(|(name, value)| format!("{name} = {value}"))
            .collect();
        format!("`{name}<{}>`", arguments.join(", "))
    }
}

impl Checker<'_> {
    /// Merges what `instantiation` reported since `reported_before` (and the places of
    /// what it reported again, `repeated`) with its kernel's earlier findings.
    pub(crate) fn merge_findings(
        &mut self,
        instantiation: &Instantiation<'_>,
        reported_before: usize,
        repeated: Vec<(&'static str, Span)>,
    ) {
        let kernel = instantiation.kernel;
        let name = &kernel.name.text;
        let described = instantiation.describe();
        let found = self.reporting.diagnostics.split_off(reported_before);
        let mut first_here: FxHashSet<Place> = FxHashSet::default();
        let mut counted_here: FxHashSet<Place> = FxHashSet::default();
        for mut diagnostic in found {
            let place = (name.clone(), diagnostic.code, diagnostic.span());
            if !first_here.contains(&place) && self.reporting.per_kernel.contains_key(&place) {
                self.found_again(&place, &described, &mut counted_here);
                continue;
            }
            if !kernel.generics.is_empty() {
                if instantiation.call_span != kernel.name.span {
                    let label = format!("{described} launched here");
                    diagnostic = diagnostic.with_secondary(instantiation.call_span, label);
                }
                diagnostic.notes.push(format!("found in {described}"));
            }
            let index = self.reporting.diagnostics.len();
            self.reporting.diagnostics.push(diagnostic);
            if first_here.insert(place.clone()) {
                let finding = Finding {
                    index,
                    note: None,
                    others: Vec::new(),
                };
                self.reporting.per_kernel.insert(place, finding);
            }
        }
        for (code, span) in repeated {
            let place = (name.clone(), code, span);
            if !first_here.contains(&place) && self.reporting.per_kernel.contains_key(&place) {
                self.found_again(&place, &described, &mut counted_here);
            }
        }
    }

    /// Names the instantiation `described` in the note of the finding at `place`, once
    /// per instantiation.
    fn found_again(&mut self, place: &Place, described: &str, counted: &mut FxHashSet<Place>) {
        if !counted.insert(place.clone()) {
            return;
        }
        let Some(finding) = self.reporting.per_kernel.get_mut(place) else {
            return;
        };
        finding.others.push(described.to_owned());
        let note = also_found(&finding.others);
        let kept = &mut self.reporting.diagnostics[finding.index];
        match finding.note {
            Some(at) => kept.notes[at] = note,
            None => {
                finding.note = Some(kept.notes.len());
                kept.notes.push(note);
            }
        }
    }
}

/// The note naming the other instantiations that found a mistake: the first three,
/// then how many more.
fn also_found(others: &[String]) -> String {
    const NAMED: usize = 3;
    let mut named = others[..others.len().min(NAMED)].join(", ");
    if others.len() > NAMED {
        named.push_str(&format!(" and {} more", others.len() - NAMED));
    }
    format!("also found in {named}")
}
