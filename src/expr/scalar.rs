//! Arithmetic expressions in mechanism files: numbers, parameters, `t` (where time-dependent
//! values are allowed), `+ - * / **`, parentheses, unary minus, `pi`, and the functions
//! `sqrt sin cos tan asin acos atan atan2 exp ln abs`.
//!
//! ```
//! use lagrangian::expr::scalar::{Expr, Scope};
//! let mut scope = Scope::default();
//! scope.set("L", 2.0);
//! let e = Expr::parse("M*L**2/12", &["L"]).unwrap_err(); // M is not defined
//! assert!(e.message.contains("M"));
//! let e = Expr::parse("-L**2/4 + sqrt(9) * cos(pi)", &["L"]).unwrap();
//! assert_eq!(e.eval(&scope, 0.0).unwrap(), -4.0);
//! ```

use std::collections::HashMap;
use std::fmt;

/// A parse or evaluation error, with the character offset in the expression text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    /// What went wrong.
    pub message: String,
    /// Character offset in the expression.
    pub offset: usize,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

/// Parameter values by name.
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
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Num(f64),
    Var(String, usize),
    Time,
    Neg(Box<Node>),
    Bin(char, Box<Node>, Box<Node>, usize),
    Call(String, Vec<Node>, usize),
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    root: Node,
    /// Whether it refers to time `t`.
    pub uses_time: bool,
}

const FUNCS: &[(&str, usize)] = &[
    ("sqrt", 1),
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("atan2", 2),
    ("exp", 1),
    ("ln", 1),
    ("abs", 1),
];

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    known: &'a [&'a str],
    uses_time: bool,
}

impl Expr {
    /// Parse `text`; names other than `pi`, `t` and those in `known` are errors.
    pub fn parse(text: &str, known: &[&str]) -> Result<Expr, ExprError> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
            known,
            uses_time: false,
        };
        let root = p.expr()?;
        p.skip_ws();
        if p.pos < p.s.len() {
            return Err(p.err(format!("unexpected '{}'", p.s[p.pos] as char)));
        }
        Ok(Expr {
            root,
            uses_time: p.uses_time,
        })
    }

    /// A constant.
    pub fn constant(x: f64) -> Expr {
        Expr {
            root: Node::Num(x),
            uses_time: false,
        }
    }

    /// Evaluate at time `t`; division by zero, a non-finite result or a domain error is an error.
    pub fn eval(&self, scope: &Scope, t: f64) -> Result<f64, ExprError> {
        eval(&self.root, scope, t)
    }
}

fn eval(n: &Node, scope: &Scope, t: f64) -> Result<f64, ExprError> {
    let v = match n {
        Node::Num(x) => *x,
        Node::Time => t,
        Node::Var(name, off) => scope.get(name).ok_or_else(|| ExprError {
            message: format!("undefined parameter '{name}'"),
            offset: *off,
        })?,
        Node::Neg(a) => -eval(a, scope, t)?,
        Node::Bin(op, a, b, off) => {
            let (x, y) = (eval(a, scope, t)?, eval(b, scope, t)?);
            match op {
                '+' => x + y,
                '-' => x - y,
                '*' => x * y,
                '/' => {
                    if y == 0.0 {
                        return Err(ExprError {
                            message: "division by zero".into(),
                            offset: *off,
                        });
                    }
                    x / y
                }
                _ => x.powf(y),
            }
        }
        Node::Call(f, args, off) => {
            // at most two arguments: no allocation on the evaluation path
            let a = [
                eval(&args[0], scope, t)?,
                match args.get(1) {
                    Some(x) => eval(x, scope, t)?,
                    None => 0.0,
                },
            ];
            let a = &a[..args.len().min(2)];
            let r = match f.as_str() {
                "sqrt" => a[0].sqrt(),
                "sin" => a[0].sin(),
                "cos" => a[0].cos(),
                "tan" => a[0].tan(),
                "asin" => a[0].asin(),
                "acos" => a[0].acos(),
                "atan" => a[0].atan(),
                "atan2" => a[0].atan2(a[1]),
                "exp" => a[0].exp(),
                "ln" => a[0].ln(),
                _ => a[0].abs(),
            };
            if !r.is_finite() {
                return Err(ExprError {
                    message: format!(
                        "{f}({}) is not defined",
                        a.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    offset: *off,
                });
            }
            r
        }
    };
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ExprError {
            message: "the value is not finite".into(),
            offset: 0,
        })
    }
}

impl Parser<'_> {
    fn err(&self, message: String) -> ExprError {
        ExprError {
            message,
            offset: self.pos,
        }
    }
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }
    fn expr(&mut self) -> Result<Node, ExprError> {
        let mut a = self.term()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            let off = self.pos;
            self.pos += 1;
            let b = self.term()?;
            a = Node::Bin(c as char, Box::new(a), Box::new(b), off);
        }
        Ok(a)
    }
    fn term(&mut self) -> Result<Node, ExprError> {
        let mut a = self.unary()?;
        loop {
            match self.peek() {
                Some(b'*') if self.s.get(self.pos + 1) != Some(&b'*') => {}
                Some(b'/') => {}
                _ => break,
            }
            let off = self.pos;
            let c = self.s[self.pos] as char;
            self.pos += 1;
            let b = self.unary()?;
            a = Node::Bin(c, Box::new(a), Box::new(b), off);
        }
        Ok(a)
    }
    fn unary(&mut self) -> Result<Node, ExprError> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                Ok(Node::Neg(Box::new(self.unary()?)))
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()
            }
            _ => self.power(),
        }
    }
    fn power(&mut self) -> Result<Node, ExprError> {
        let a = self.atom()?;
        if self.peek() == Some(b'*') && self.s.get(self.pos + 1) == Some(&b'*') {
            let off = self.pos;
            self.pos += 2;
            let b = self.unary()?; // right associative: 2**-1, 2**3**2
            return Ok(Node::Bin('^', Box::new(a), Box::new(b), off));
        }
        Ok(a)
    }
    fn atom(&mut self) -> Result<Node, ExprError> {
        let c = self
            .peek()
            .ok_or_else(|| self.err("expression ends too early".into()))?;
        if c == b'(' {
            self.pos += 1;
            let e = self.expr()?;
            if self.peek() != Some(b')') {
                return Err(self.err("missing ')'".into()));
            }
            self.pos += 1;
            return Ok(e);
        }
        if c.is_ascii_digit() || c == b'.' {
            return lex_number(self.s, &mut self.pos).map(Node::Num);
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = self.pos;
            while self.pos < self.s.len()
                && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
            {
                self.pos += 1;
            }
            let name = std::str::from_utf8(&self.s[start..self.pos])
                .unwrap_or("")
                .to_string();
            if self.peek() == Some(b'(') {
                let Some(&(_, arity)) = FUNCS.iter().find(|(f, _)| *f == name) else {
                    return Err(ExprError {
                        message: format!("unknown function '{name}' (known: sqrt sin cos tan asin acos atan atan2 exp ln abs)"),
                        offset: start,
                    });
                };
                self.pos += 1;
                let mut args = vec![self.expr()?];
                while self.peek() == Some(b',') {
                    self.pos += 1;
                    args.push(self.expr()?);
                }
                if self.peek() != Some(b')') {
                    return Err(self.err("missing ')' after the arguments".into()));
                }
                self.pos += 1;
                if args.len() != arity {
                    return Err(ExprError {
                        message: format!("{name} takes {arity} argument(s), got {}", args.len()),
                        offset: start,
                    });
                }
                return Ok(Node::Call(name, args, start));
            }
            return match name.as_str() {
                "pi" => Ok(Node::Num(std::f64::consts::PI)),
                "t" => {
                    self.uses_time = true;
                    Ok(Node::Time)
                }
                _ if self.known.contains(&name.as_str()) => Ok(Node::Var(name, start)),
                _ => Err(ExprError {
                    message: format!("undefined parameter '{name}'"),
                    offset: start,
                }),
            };
        }
        Err(self.err(format!("unexpected '{}'", c as char)))
    }
}

/// Read a number (`12`, `.5`, `1.5e-3`) at `*pos`, advancing past it.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> f64 {
        let mut sc = Scope::default();
        sc.set("L", 3.0);
        Expr::parse(s, &["L"]).unwrap().eval(&sc, 0.5).unwrap()
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
        assert_eq!(ev("1e-3 * t"), 0.0005);
        assert!((ev("sin(pi/2) + cos(0) + tan(0) + sqrt(16)") - 6.0).abs() < 1e-15);
    }

    #[test]
    fn errors_say_where() {
        let e = Expr::parse("L + X", &["L"]).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.message.contains("'X'"));
        let e = Expr::parse("foo(2)", &[]).unwrap_err();
        assert!(e.message.contains("unknown function"));
        let e = Expr::parse("(1 + 2", &[]).unwrap_err();
        assert!(e.message.contains("')'"));
        let e = Expr::parse("1 +", &[]).unwrap_err();
        assert!(e.message.contains("ends"));
        let e = Expr::parse("atan2(1)", &[]).unwrap_err();
        assert!(e.message.contains("2 argument"));
        let sc = Scope::default();
        let e = Expr::parse("1/(2-2)", &[])
            .unwrap()
            .eval(&sc, 0.0)
            .unwrap_err();
        assert_eq!((e.message.as_str(), e.offset), ("division by zero", 1));
        assert!(Expr::parse("sqrt(-1)", &[])
            .unwrap()
            .eval(&sc, 0.0)
            .is_err());
        assert!(Expr::parse("1 2", &[]).is_err());
    }
}
