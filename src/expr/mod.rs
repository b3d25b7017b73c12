//! One expression language on dual numbers: the parameters, loads, `Define` assignments and
//! `Equations` of mechanism files, evaluated inside element kernels (so it sits below the model).
//! Beside it, the number type the expressions (and every user's energy) also evaluate on to
//! give Taylor series in time: [`taylor::Taylor`], for the Taylor-series integrator.
//!
//! [`VExpr`] is a type-checked, constant-folded graph over coordinates `q_j`, time `t` and
//! constants, scalar- or vector-valued, evaluated on any [`DualNum`](num_dual::DualNum). A
//! parameter expression is the special case with no coordinates and no time:
//! [`Scope::number`] parses one against the named values defined so far.
//!
//! ```
//! use lagrangian::expr::Scope;
//! let mut scope = Scope::default();
//! scope.set("L", 2.0);
//! assert_eq!(scope.number("-L**2/4 + sqrt(9) * cos(pi)").unwrap(), -4.0);
//! let e = scope.number("M*L**2/12").unwrap_err(); // M is not defined
//! assert!(e.message.contains("'M'") && e.offset == 0);
//! ```

pub mod chain;
pub mod exact;
pub mod taylor;
pub mod vector;

pub use vector::{Sym, VExpr, Val};

use std::collections::HashMap;

pub use crate::error::ExprError;

/// Named parameter values.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    values: HashMap<String, f64>,
}

impl Scope {
    /// Define or redefine a parameter.
    pub fn set(&mut self, name: &str, value: f64) {
        self.values.insert(name.to_string(), value);
    }
    /// Look a parameter up.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.get(name).copied()
    }
    /// Names defined so far.
    pub fn names(&self) -> Vec<&str> {
        self.values.keys().map(String::as_str).collect()
    }

    /// Parse `text` as a constant scalar expression over the parameters (no coordinates, no
    /// time) and evaluate it. Undefined names, vectors, `t`, and non-finite values (a division
    /// by zero, `sqrt(-1)`) are errors.
    pub fn number(&self, text: &str) -> Result<f64, ExprError> {
        let lookup = |name: &str| self.get(name).map(Sym::Param);
        let e = VExpr::parse(text, 3, &lookup).map_err(|mut e| {
            if let Some(rest) = e.message.strip_prefix("undefined name") {
                e.message = format!("undefined parameter{rest}");
            }
            e
        })?;
        let whole = |message: &str| ExprError {
            message: message.into(),
            offset: 0,
        };
        if e.is_vector() {
            return Err(whole("expected a number, found a vector"));
        }
        if e.uses_time() {
            return Err(whole("time t is not allowed here"));
        }
        let x = e.eval_scalar::<f64>(&|_| f64::NAN, 0.0);
        if !x.is_finite() {
            return Err(whole(&format!(
                "the value is not a finite number ({x}: a division by zero or a function outside its domain)"
            )));
        }
        Ok(x)
    }
}

/// Lex a number (`12`, `.5`, `1e-3`) at `pos`, advancing it.
pub(crate) fn lex_number(s: &[u8], pos: &mut usize) -> Result<f64, ExprError> {
    let start = *pos;
    while *pos < s.len() && (s[*pos].is_ascii_digit() || s[*pos] == b'.') {
        *pos += 1;
    }
    if *pos < s.len() && (s[*pos] == b'e' || s[*pos] == b'E') {
        let save = *pos;
        *pos += 1;
        if *pos < s.len() && (s[*pos] == b'+' || s[*pos] == b'-') {
            *pos += 1;
        }
        if *pos < s.len() && s[*pos].is_ascii_digit() {
            while *pos < s.len() && s[*pos].is_ascii_digit() {
                *pos += 1;
            }
        } else {
            *pos = save;
        }
    }
    let text = std::str::from_utf8(&s[start..*pos]).unwrap_or("");
    text.parse::<f64>().map_err(|_| ExprError {
        message: format!("'{text}' is not a number"),
        offset: start,
    })
}

/// `text` for an error message: whole when short, else about 60 characters around byte
/// `offset` with `…` where it was cut.
///
/// ```
/// use lagrangian::expr::excerpt;
/// assert_eq!(excerpt("a + b", 2), "a + b");
/// let long = format!("{}x{}", "1 + ".repeat(100), " + 2".repeat(100));
/// let e = excerpt(&long, 400);
/// assert!(e.len() < 80 && e.starts_with('…') && e.ends_with('…') && e.contains('x'));
/// ```
pub fn excerpt(text: &str, offset: usize) -> String {
    const WIDTH: usize = 60;
    if text.chars().count() <= WIDTH + 20 {
        return text.to_string();
    }
    let mut start = offset.saturating_sub(WIDTH / 2).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + WIDTH).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    format!(
        "{}{}{}",
        if start > 0 { "…" } else { "" },
        &text[start..end],
        if end < text.len() { "…" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> f64 {
        let mut sc = Scope::default();
        sc.set("L", 3.0);
        sc.number(s).unwrap()
    }

    #[test]
    fn precedence_and_functions() {
        assert_eq!(ev("1 + 2 * 3"), 7.0);
        assert_eq!(ev("(1 + 2) * 3"), 9.0);
        assert_eq!(ev("2 ** 3 ** 2"), 512.0);
        assert_eq!(ev("-2 ** 2"), -4.0);
        assert_eq!(ev("2 ** -1"), 0.5);
        assert_eq!(ev("L/2"), 1.5);
        assert_eq!(ev("atan2(1, 1)"), std::f64::consts::FRAC_PI_4);
        assert_eq!(ev("ln(exp(2))"), 2.0);
        assert_eq!(ev(".5e1"), 5.0);
        assert!((ev("sin(pi/2) + cos(0) + tan(0) + sqrt(16)") - 6.0).abs() < 1e-15);
        assert!(
            (ev("asin(1) + acos(1) + atan(0) + abs(-2)") - (std::f64::consts::FRAC_PI_2 + 2.0))
                .abs()
                < 1e-15
        );
    }

    #[test]
    fn errors_say_where() {
        let sc = Scope::default();
        let mut one = Scope::default();
        one.set("L", 1.0);
        let e = one.number("L + X").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.message.contains("undefined parameter 'X'"), "{e}");
        let e = sc.number("foo(2)").unwrap_err();
        assert!(e.message.contains("unknown function"), "{e}");
        let e = sc.number("(1 + 2").unwrap_err();
        assert!(e.message.contains("')'"), "{e}");
        assert!(sc.number("1 +").is_err());
        assert!(sc.number("atan2(1)").is_err());
        assert!(sc.number("1 2").is_err());
        let e = sc.number("1e-3 * t").unwrap_err();
        assert!(e.message.contains("time t is not allowed"), "{e}");
        assert!(sc.number("[1, 2, 3]").is_err());
        let e = sc.number("1/(2-2)").unwrap_err();
        assert_eq!((e.message.as_str(), e.offset), ("division by zero", 1));
        for bad in ["sqrt(-1)", "ln(0)", "acos(2)"] {
            let e = sc.number(bad).unwrap_err();
            assert!(e.message.contains("is not defined here"), "{bad}: {e}");
        }
        // overflow is caught where it happens
        let e = sc.number("2 * exp(1000)").unwrap_err();
        assert!(
            e.message.contains("exp is not defined here") && e.offset == 4,
            "{e}"
        );
    }
}
