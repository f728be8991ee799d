//! A compact S-expression printer for the AST, used by parse snapshots.
//!
//! Items, statements and launch parts go on their own indented lines;
//! expressions print inline: `(call make_layout (tuple 4 3))`,
//! `(layout (tuple 4 3) (tuple 1 4))`, `(+ a b)`, `(method thr partition_S gA)`,
//! `(. block_idx x)`, `(index t i _)`, `(= rtol 1e-6)` for a named argument.
//! Spans are not printed.

use std::fmt::Write;

use super::*;

mod expr;

/// Renders a module as indented S-expressions, one item per top-level line.
pub fn module_to_string(module: &Module) -> String {
    let mut printer = Printer::default();
    for item in &module.items {
        printer.item(item);
    }
    printer.out
}

/// Renders one expression on a single line.
pub fn expr_to_string(expr: &Expr) -> String {
    let mut printer = Printer::default();
    printer.expr(expr);
    printer.out
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line(&mut self, text: &str) {
        self.start_line();
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn start_line(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn item(&mut self, item: &Item) {
        match &item.kind {
            ItemKind::Use(use_item) => {
                self.start_line();
                self.out.push_str("(use ");
                self.path(&use_item.path);
                match &use_item.tree {
                    UseTree::Single => {}
                    UseTree::Glob => self.out.push_str("::*"),
                    UseTree::Group(names) => {
                        self.out.push_str("::{");
                        self.names(names, ", ");
                        self.out.push('}');
                    }
                }
                self.out.push_str(")\n");
            }
            ItemKind::Const(constant) => {
                self.start_line();
                self.out.push_str("(const ");
                self.pattern(&constant.pattern);
                self.optional_type(constant.ty.as_ref());
                self.out.push(' ');
                self.expr(&constant.value);
                self.out.push_str(")\n");
            }
            ItemKind::Function(function) => {
                self.header("fn", &function.name, &function.generics, &function.params);
                if let Some(ty) = &function.return_type {
                    self.start_line();
                    self.out.push_str("(returns ");
                    self.ty(ty);
                    self.out.push_str(")\n");
                }
                self.block("body", &function.body);
                self.close();
            }
            ItemKind::Kernel(kernel) => {
                self.header("kernel", &kernel.name, &kernel.generics, &kernel.params);
                for part in &kernel.launch {
                    self.start_line();
                    let _ = write!(self.out, "(launch-{}", part.kind.keyword());
                    for arg in &part.args {
                        self.out.push(' ');
                        self.expr(arg);
                    }
                    self.out.push_str(")\n");
                }
                self.block("body", &kernel.body);
                self.close();
            }
            ItemKind::Atom(atom) => {
                self.header("atom", &atom.name, &atom.generics, &[]);
                self.line(&format!("(kind {})", atom.kind.text));
                for property in &atom.properties {
                    self.start_line();
                    let _ = write!(self.out, "({} ", property.key.text);
                    self.expr(&property.value);
                    self.out.push_str(")\n");
                }
                self.close();
            }
            ItemKind::Test(test) => self.test_block("test", test),
            ItemKind::Bench(bench) => self.test_block("bench", bench),
            ItemKind::Tune(tune) => self.tune_block(tune),
            ItemKind::Error => self.line("(error)"),
        }
    }

    fn header(&mut self, keyword: &str, name: &Name, generics: &[GenericParam], params: &[Param]) {
        self.line(&format!("({keyword} {}", name.text));
        self.indent += 1;
        for generic in generics {
            self.start_line();
            let _ = write!(self.out, "(const-param {} ", generic.name.text);
            self.ty(&generic.kind);
            if let Some(default) = &generic.default {
                self.out.push(' ');
                self.expr(default);
            }
            self.out.push_str(")\n");
        }
        for param in params {
            self.start_line();
            let _ = write!(self.out, "(param {} ", param.name.text);
            self.ty(&param.ty);
            self.out.push_str(")\n");
        }
    }

    fn close(&mut self) {
        self.indent = self.indent.saturating_sub(1);
        self.line(")");
    }

    fn test_block(&mut self, keyword: &str, test: &TestBlock) {
        self.line(&format!("({keyword} {}", test.name.text));
        self.indent += 1;
        if let Some(ranks) = &test.ranks {
            self.start_line();
            let _ = write!(self.out, "({} ", ranks.keyword.text);
            self.expr(&ranks.count);
            self.out.push_str(")\n");
        }
        self.block("body", &test.body);
        self.close();
    }

    fn tune_block(&mut self, tune: &TuneBlock) {
        self.line(&format!("(tune {} {}", tune.name.text, tune.kernel.text));
        self.indent += 1;
        let benches: Vec<&str> = tune
            .benches
            .iter()
            .map(|bench| bench.text.as_str())
            .collect();
        self.line(&format!("(for {})", benches.join(" ")));
        for param in &tune.params {
            self.start_line();
            let _ = write!(self.out, "(in {}", param.name.text);
            for value in &param.values {
                self.out.push(' ');
                self.expr(value);
            }
            self.out.push_str(")\n");
        }
        for constraint in &tune.constraints {
            self.start_line();
            self.out.push_str("(where ");
            self.expr(constraint);
            self.out.push_str(")\n");
        }
        self.close();
    }

    fn block(&mut self, label: &str, block: &Block) {
        self.line(&format!("({label}"));
        self.indent += 1;
        for statement in &block.statements {
            self.stmt(statement);
        }
        if let Some(tail) = &block.tail {
            self.start_line();
            self.out.push_str("(tail ");
            self.expr(tail);
            self.out.push_str(")\n");
        }
        self.close();
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Let {
                mutable,
                pattern,
                ty,
                value,
            } => {
                self.start_line();
                self.out
                    .push_str(if *mutable { "(let-mut " } else { "(let " });
                self.pattern(pattern);
                self.optional_type(ty.as_ref());
                self.out.push(' ');
                self.expr(value);
                self.out.push_str(")\n");
            }
            StmtKind::Assign { op, target, value } => {
                self.start_line();
                let _ = write!(self.out, "(assign{} ", op.symbol());
                self.expr(target);
                self.out.push(' ');
                self.expr(value);
                self.out.push_str(")\n");
            }
            StmtKind::Expr(expr) => {
                self.start_line();
                self.expr(expr);
                self.out.push('\n');
            }
            StmtKind::Return(value) => {
                self.start_line();
                self.out.push_str("(return");
                if let Some(value) = value {
                    self.out.push(' ');
                    self.expr(value);
                }
                self.out.push_str(")\n");
            }
            StmtKind::Break => self.line("(break)"),
            StmtKind::Continue => self.line("(continue)"),
            StmtKind::Empty => self.line("(empty)"),
            StmtKind::Report(parts) => self.report(parts),
            StmtKind::For {
                variable,
                unrolled,
                start,
                end,
                body,
            } => {
                self.start_line();
                let keyword = if *unrolled { "for-static" } else { "for" };
                let _ = write!(self.out, "({keyword} {} ", variable.text);
                self.expr(start);
                self.out.push(' ');
                self.expr(end);
                self.out.push('\n');
                self.indent += 1;
                self.block("do", body);
                self.close();
            }
            StmtKind::Block(block) => self.block("block", block),
            StmtKind::While { condition, body } => {
                self.start_line();
                self.out.push_str("(while ");
                self.expr(condition);
                self.out.push('\n');
                self.indent += 1;
                self.block("do", body);
                self.close();
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                self.line("(if");
                self.indent += 1;
                for branch in branches {
                    self.start_line();
                    self.out.push_str(if branch.is_const {
                        "(when-const "
                    } else {
                        "(when "
                    });
                    self.expr(&branch.condition);
                    self.out.push('\n');
                    self.indent += 1;
                    self.block("then", &branch.body);
                    self.close();
                }
                if let Some(block) = otherwise {
                    self.block("else", block);
                }
                self.close();
            }
            StmtKind::Error => self.line("(error)"),
        }
    }

    fn report(&mut self, parts: &[ReportPart]) {
        self.start_line();
        self.out.push_str("(report");
        for part in parts {
            match part {
                ReportPart::Metric { name, value } => {
                    let _ = write!(self.out, " ({} ", name.text);
                    self.expr(value);
                    self.out.push(')');
                }
                ReportPart::Against(reference) => {
                    self.out.push_str(" (against ");
                    self.expr(reference);
                    self.out.push(')');
                }
            }
        }
        self.out.push_str(")\n");
    }

    fn pattern(&mut self, pattern: &Pattern) {
        match &pattern.kind {
            PatternKind::Name(name) => self.out.push_str(&name.text),
            PatternKind::Wildcard => self.out.push('_'),
            PatternKind::Tuple(parts) => {
                self.out.push_str("(tuple");
                for part in parts {
                    self.out.push(' ');
                    self.pattern(part);
                }
                self.out.push(')');
            }
        }
    }

    fn optional_type(&mut self, ty: Option<&Type>) {
        if let Some(ty) = ty {
            self.out.push_str(" : ");
            self.ty(ty);
        }
    }

    fn ty(&mut self, ty: &Type) {
        match &ty.kind {
            TypeKind::Named(path) => self.path(path),
            TypeKind::Tensor {
                space,
                element,
                layout,
            } => self.tensor(*space, element, layout),
        }
    }
}
