//! Mechanism files (YAML, after DAETS' mechanism facility): schema, parameter
//! expressions, and the translation into a [`Model`](crate::model::Model). The format is documented in
//! `docs/yaml.md`; every error names `file:line:column` and the field.
//!
//! ```
//! let text = "Title: pendulum\nDimension: 2\nPhysicalParams: { l: 2 }\n\
//!             PartData:\n  Fixed: { O: [0, 0] }\n  Particles: { B: 1 }\n  Bars: { OB: l }\n\
//!             AppliedForces:\n  Gravity:\n\
//!             ProblemData:\n  tend: 1\n  positions: { B: [l, 0] }\n";
//! let (p, plan) = lagrangian::spec::parse(text, "pendulum.yaml").unwrap();
//! assert_eq!((p.model.n_coords(), p.model.n_constraints()), (2, 1));
//! assert_eq!(p.model.coordinate_names(), ["B.x", "B.y"]);
//! assert_eq!((p.t_end, plan.output_every), (1.0, 1)); // the span is the problem's, the rows the plan's
//! ```

mod build;
pub mod chain;
pub mod chain_toml;
mod locate;
pub mod multibody;
pub mod urdf;

use crate::expr::Scope;
use crate::expr::vector::{Sym, VExpr};
use crate::problem::{Problem, RunPlan};
pub use build::MAX_TOTAL_SIZE;
pub use chain::{ChainSpec, is_chain};
use serde_yaml::{Mapping, Value};
use std::path::Path;
use std::sync::Arc;

pub use crate::error::SpecError;

/// Read and build a mechanism file (a mechanism or a pendulum chain): the problem it states
/// and the plan it asks for (its `SolverParams` and `Output`).
pub fn load(path: &Path) -> Result<(Problem, RunPlan), SpecError> {
    load_with(path, &[])
}

/// A parameter assignment `NAME=VALUE` (the command line's `--set`).
///
/// ```
/// use lagrangian::spec::parse_set;
/// assert_eq!(parse_set("k=200"), Ok(("k".to_string(), 200.0)));
/// assert!(parse_set("k").is_err() && parse_set("k=abc").is_err() && parse_set("k=inf").is_err());
/// ```
pub fn parse_set(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s.split_once('=').ok_or("expected NAME=VALUE, e.g. k=200")?;
    let x: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a number"))?;
    match x.is_finite() {
        true => Ok((name.trim().to_string(), x)),
        false => Err(format!("'{value}' is not a finite number")),
    }
}

/// [`load`] with parameters changed: each `(name, value)` replaces the value of a
/// `PhysicalParams` entry, and everything that depends on it is evaluated with the new value
/// (as if the file had been edited).
pub fn load_with(path: &Path, sets: &[(String, f64)]) -> Result<(Problem, RunPlan), SpecError> {
    let file = path.display().to_string();
    let err = |line, column, message| SpecError {
        file: file.clone(),
        line,
        column,
        field: String::new(),
        message,
    };
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_FILE_BYTES as u64 {
        return Err(err(1, 1, too_large(size as usize)));
    }
    let bytes = std::fs::read(path).map_err(|e| err(1, 1, format!("cannot read the file: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let good = String::from_utf8_lossy(good);
        let line = good.matches('\n').count() + 1;
        let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        err(
            line,
            column,
            "the file is not UTF-8 text (an invalid byte here)".into(),
        )
    })?;
    parse_with(&text, &file, sets)
}

/// Build a pendulum-chain file (the PHYS389 N-pendulum simulator's configuration, see [`chain`]) from YAML text.
pub fn parse_chain(text: &str, file: &str) -> Result<ChainSpec, SpecError> {
    let value = document(text, file)?;
    let ctx = Ctx {
        text,
        file,
        scope: Scope::default(),
        names: Vec::new(),
        sets: Vec::new(),
    };
    chain::build(ctx, &value)
}

/// The largest mechanism file read (16 MB): a file of any size the toolkit documents is far
/// smaller (repetition is written with `Grids`, `Chains` and `Define`s); reading a larger
/// one would take many times its size in memory.
pub const MAX_FILE_BYTES: usize = 16 << 20;

fn too_large(bytes: usize) -> String {
    format!(
        "the file has {:.1} MB; mechanism files may have at most {} MB (write repeated \
         elements as Grids or Chains)",
        bytes as f64 / 1e6,
        MAX_FILE_BYTES >> 20
    )
}

/// The document of a file: TOML (a `.toml` file: the N-pendulum configuration) or YAML.
fn document(text: &str, file: &str) -> Result<Value, SpecError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(SpecError {
            file: file.to_string(),
            line: 1,
            column: 1,
            field: String::new(),
            message: too_large(text.len()),
        });
    }
    match chain_toml::is_toml(file) {
        true => chain_toml::document(text, file),
        false => yaml(text, file),
    }
}

fn yaml(text: &str, file: &str) -> Result<Value, SpecError> {
    serde_yaml::from_str(text).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        SpecError {
            file: file.to_string(),
            line,
            column,
            field: String::new(),
            message: format!("not valid YAML: {e}"),
        }
    })
}

/// Build a mechanism file's [`Problem`] and [`RunPlan`] from YAML text (a mechanism, or a
/// pendulum chain when it has `pendula`); `file` is used in error messages.
pub fn parse(text: &str, file: &str) -> Result<(Problem, RunPlan), SpecError> {
    parse_with(text, file, &[])
}

/// [`parse`] with parameters changed (see [`load_with`]).
///
/// ```
/// use lagrangian::spec;
/// let text = "Dimension: 2\nPhysicalParams: { l: 2, m: 3*l }\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Bars: { OA: l } }\n\
///             ProblemData: { tend: 1, positions: { A: [l, 0] } }\n";
/// let (p, _plan) = spec::parse_with(text, "f.yaml", &[("l".into(), 5.0)])?;
/// assert_eq!(p.parameters, [("l".to_string(), 5.0), ("m".to_string(), 15.0)]);
/// assert_eq!(p.q_guess, [5.0, 0.0]);
/// assert_eq!(p.overrides, ["l=5"]);
/// let e = spec::parse_with(text, "f.yaml", &[("k".into(), 1.0)]).unwrap_err();
/// assert!(e.to_string().contains("no parameter 'k'"), "{e}");
/// # Ok::<(), lagrangian::error::SpecError>(())
/// ```
pub fn parse_with(
    text: &str,
    file: &str,
    sets: &[(String, f64)],
) -> Result<(Problem, RunPlan), SpecError> {
    if urdf::is_urdf(file) {
        return urdf::problem_and_plan(text, file, sets);
    }
    let value = document(text, file)?;
    let ctx = Ctx {
        text,
        file,
        scope: Scope::default(),
        names: Vec::new(),
        sets: sets.to_vec(),
    };
    let chain = value
        .as_mapping()
        .is_some_and(|m| m.contains_key("pendula"));
    if chain {
        if let Some((name, _)) = sets.first() {
            return Err(SpecError {
                file: file.to_string(),
                line: 1,
                column: 1,
                field: String::new(),
                message: format!(
                    "cannot set '{name}': a pendulum-chain file has no named parameters (edit the file)"
                ),
            });
        }
        let c = chain::build(ctx, &value)?;
        return c.problem().map_err(|e| SpecError {
            file: file.to_string(),
            line: 1,
            column: 1,
            field: String::new(),
            message: e.to_string(),
        });
    }
    let (mut problem, plan) = build::build(ctx, &value)?;
    problem.source = Some(Arc::new(FileSource {
        text: text.to_string(),
        file: file.to_string(),
        sets: sets.to_vec(),
    }));
    Ok((problem, plan))
}

/// A mechanism file's text, to build its problem again with other parameter values.
struct FileSource {
    text: String,
    file: String,
    sets: Vec<(String, f64)>,
}

impl crate::problem::Rebuild for FileSource {
    fn rebuild(&self, parameters: &[(String, f64)]) -> Result<Problem, crate::error::Error> {
        let mut sets = self.sets.clone();
        for (n, v) in parameters {
            match sets.iter_mut().find(|(m, _)| m == n) {
                Some(s) => s.1 = *v,
                None => sets.push((n.clone(), *v)),
            }
        }
        Ok(parse_with(&self.text, &self.file, &sets)?.0)
    }
}

/// Loader state: the text (for positions), the file name, the parameters defined so far.
pub(crate) struct Ctx<'a> {
    pub text: &'a str,
    pub file: &'a str,
    pub scope: Scope,
    pub names: Vec<String>,
    /// Parameter values that replace the file's (`--set`).
    pub sets: Vec<(String, f64)>,
}

/// A path of keys into the document.
pub(crate) type KeyPath = Vec<String>;

pub(crate) fn path(parts: &[&str]) -> KeyPath {
    parts.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn sub(p: &KeyPath, k: &str) -> KeyPath {
    let mut q = p.clone();
    q.push(k.to_string());
    q
}

impl Ctx<'_> {
    /// An error at `p`.
    pub fn err(&self, p: &KeyPath, message: impl Into<String>) -> SpecError {
        let (line, column) = locate::locate(self.text, p);
        SpecError {
            file: self.file.to_string(),
            line,
            column,
            field: p.join("."),
            message: message.into(),
        }
    }

    /// The value as a mapping.
    pub fn map<'v>(&self, v: &'v Value, p: &KeyPath) -> Result<&'v Mapping, SpecError> {
        v.as_mapping().ok_or_else(|| {
            self.err(
                p,
                format!("expected a mapping (key: value), found {}", kind(v)),
            )
        })
    }

    /// Keys of a mapping as strings, checking them against `allowed` (if given).
    pub fn keys<'v>(
        &self,
        m: &'v Mapping,
        p: &KeyPath,
        allowed: Option<&[&str]>,
    ) -> Result<Vec<(String, &'v Value)>, SpecError> {
        let mut out = Vec::new();
        for (k, v) in m {
            let key = match k {
                Value::String(s) => s.trim().to_string(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                other => {
                    return Err(self.err(p, format!("keys must be names, found {}", kind(other))));
                }
            };
            if let Some(allowed) = allowed
                && !allowed.contains(&key.as_str())
            {
                return Err(self.err(
                    &sub(p, &key),
                    format!("unknown key '{key}' (allowed here: {})", allowed.join(", ")),
                ));
            }
            out.push((key, v));
        }
        Ok(out)
    }

    /// A required key.
    pub fn required<'v>(
        &self,
        m: &'v Mapping,
        p: &KeyPath,
        key: &str,
    ) -> Result<&'v Value, SpecError> {
        m.get(key)
            .ok_or_else(|| self.err(p, format!("missing field '{key}'")))
    }

    /// A number or the text of an expression.
    fn source(&self, v: &Value, p: &KeyPath) -> Result<Result<f64, String>, SpecError> {
        match v {
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if x.is_finite() {
                    Ok(Ok(x))
                } else {
                    Err(self.err(p, "the number is not finite"))
                }
            }
            Value::String(s) => Ok(Err(s.clone())),
            other => Err(self.err(
                p,
                format!("expected a number or an expression, found {}", kind(other)),
            )),
        }
    }

    /// A number, or a constant expression over the parameters defined so far.
    pub fn num(&self, v: &Value, p: &KeyPath) -> Result<f64, SpecError> {
        let text = match self.source(v, p)? {
            Ok(x) => return Ok(x),
            Err(text) => text,
        };
        self.scope.number(&text).map_err(|e| {
            let hint = if text.matches('(').count() > text.matches(')').count() {
                " — inside { … } or [ … ] a comma ends the value: quote the expression, \"atan2(y, x)\""
            } else {
                ""
            };
            let shown = crate::expr::excerpt(&text, e.offset);
            self.err(p, format!("in '{shown}': {e}{hint}"))
        })
    }

    /// A positive number.
    pub fn positive(&self, v: &Value, p: &KeyPath, what: &str) -> Result<f64, SpecError> {
        let x = self.num(v, p)?;
        if x > 0.0 {
            Ok(x)
        } else {
            Err(self.err(p, format!("{what} must be positive, got {x}")))
        }
    }

    /// A whole number in `1..=max` (`what` names it in the message).
    pub fn count(
        &self,
        v: &Value,
        p: &KeyPath,
        what: &str,
        max: usize,
    ) -> Result<usize, SpecError> {
        let x = self.num(v, p)?;
        if !(x >= 1.0) || x.fract() != 0.0 {
            return Err(self.err(p, format!("{what} must be a whole number ≥ 1, got {x}")));
        }
        if x > max as f64 {
            return Err(self.err(p, format!("{what} = {x} is above the limit of {max}")));
        }
        Ok(x as usize)
    }

    /// A vector of exactly `dim` numbers.
    pub fn vector(&self, v: &Value, p: &KeyPath, dim: usize) -> Result<[f64; 3], SpecError> {
        let seq = v.as_sequence().ok_or_else(|| {
            self.err(
                p,
                format!("expected a list of {dim} numbers, found {}", kind(v)),
            )
        })?;
        if seq.len() != dim {
            return Err(self.err(
                p,
                format!(
                    "expected {dim} components (Dimension is {dim}), found {}",
                    seq.len()
                ),
            ));
        }
        let mut out = [0.0; 3];
        for (k, x) in seq.iter().enumerate() {
            out[k] = self.num(x, p)?;
        }
        Ok(out)
    }

    /// A scalar expression that may use time `t` (forces, torques), with the parameters folded
    /// in: evaluating it in a step is a walk over a few nodes, no name lookups.
    pub fn time_expr(&self, v: &Value, p: &KeyPath) -> Result<VExpr, SpecError> {
        let text = match self.source(v, p)? {
            Ok(x) => return Ok(VExpr::constant(x)),
            Err(text) => text,
        };
        let lookup = |name: &str| self.scope.get(name).map(Sym::Param);
        let e = VExpr::parse(&text, 3, &lookup).map_err(|e| {
            let shown = crate::expr::excerpt(&text, e.offset);
            self.err(p, format!("in '{shown}': {e}"))
        })?;
        let shown = crate::expr::excerpt(&text, 0);
        if e.is_vector() {
            return Err(self.err(
                p,
                format!("in '{shown}': expected a number, found a vector"),
            ));
        }
        if !e.eval_scalar::<f64>(&|_| f64::NAN, 0.0).is_finite() {
            return Err(self.err(p, format!("in '{shown}': not defined at t = 0")));
        }
        Ok(e)
    }

    /// A vector of `dim` expressions that may use time.
    pub fn vector_expr(&self, v: &Value, p: &KeyPath, dim: usize) -> Result<Vec<VExpr>, SpecError> {
        let seq = v.as_sequence().ok_or_else(|| {
            self.err(
                p,
                format!(
                    "expected a list of {dim} numbers or expressions, found {}",
                    kind(v)
                ),
            )
        })?;
        if seq.len() != dim {
            return Err(self.err(
                p,
                format!(
                    "expected {dim} components (Dimension is {dim}), found {}",
                    seq.len()
                ),
            ));
        }
        seq.iter().map(|x| self.time_expr(x, p)).collect()
    }
}

/// What kind of YAML value this is, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}
