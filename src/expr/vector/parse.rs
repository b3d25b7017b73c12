//! The parser of the vector expression language: text → type-checked, constant-folded graph.

use super::{FUNCS, MAX_DEPTH, MAX_NEED, MAX_SIZE, Node, Sym, VExpr};
use crate::expr::{ExprError, lex_number};

impl VExpr {
    /// Parse `text` in `dim` dimensions; names are resolved by `lookup`.
    pub fn parse(
        text: &str,
        dim: usize,
        lookup: &dyn Fn(&str) -> Option<Sym>,
    ) -> Result<VExpr, ExprError> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
            dim,
            lookup,
            nesting: 0,
        };
        let e = p.expr()?;
        p.skip_ws();
        if p.pos < p.s.len() {
            return Err(p.err(format!("unexpected '{}'", p.s[p.pos] as char)));
        }
        p.check_size(&e, 0)?;
        Ok(e)
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    dim: usize,
    lookup: &'a dyn Fn(&str) -> Option<Sym>,
    /// Current recursion depth of the parser (parentheses, signs, powers, arguments).
    nesting: usize,
}

/// The deepest nesting of parentheses, signs and powers the parser follows.
pub const MAX_NESTING: usize = 100;

/// Sums of more terms than this are stored as balanced trees (fewer levels to evaluate).
const BALANCE_ABOVE: usize = 8;

impl Parser<'_> {
    fn err(&self, message: String) -> ExprError {
        ExprError {
            message,
            offset: self.pos,
        }
    }
    fn at(offset: usize) -> impl Fn(String) -> ExprError + use<> {
        move |message| ExprError { message, offset }
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
    fn expect(&mut self, c: u8, what: &str) -> Result<(), ExprError> {
        if self.peek() != Some(c) {
            return Err(self.err(format!("missing '{}' {what}", c as char)));
        }
        self.pos += 1;
        Ok(())
    }
    /// Refuse an expression too deep or too large to evaluate (see [`MAX_DEPTH`], [`MAX_SIZE`]).
    fn check_size(&self, e: &VExpr, offset: usize) -> Result<(), ExprError> {
        if e.depth() > MAX_DEPTH {
            return Err(Self::at(offset)(format!(
                "the expression nests {} operations deep (with the definitions it uses); the \
                 limit is {MAX_DEPTH}",
                e.depth()
            )));
        }
        if e.need() > MAX_NEED {
            return Err(Self::at(offset)(format!(
                "the expression needs {} intermediate values at once; the limit is {MAX_NEED}: \
                 split it into Define entries",
                e.need()
            )));
        }
        if e.size() > MAX_SIZE {
            return Err(Self::at(offset)(format!(
                "the expression expands to {} operations (definitions used repeatedly count \
                 each time); the limit is {MAX_SIZE}",
                e.size()
            )));
        }
        Ok(())
    }
    fn expr(&mut self) -> Result<VExpr, ExprError> {
        let first = self.term()?;
        let mut terms = vec![(first, false, self.pos)];
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            let off = self.pos;
            self.pos += 1;
            let b = self.term()?;
            if b.vector != terms[0].0.vector {
                // the type error of the two-term sum, at this operator
                if let Err(e) = VExpr::sum(terms[0].0.clone(), b.clone(), c == b'-') {
                    return Err(Self::at(off)(e));
                }
            }
            terms.push((b, c == b'-', off));
        }
        if terms.len() <= BALANCE_ABOVE {
            let mut it = terms.into_iter();
            let (mut a, _, _) = it.next().expect("one term");
            for (b, minus, off) in it {
                a = VExpr::sum(a, b, minus).map_err(Self::at(off))?;
            }
            return Ok(a);
        }
        Self::balanced(&terms)
    }
    /// `Σ ±tᵢ` as a balanced tree; the first term's sign is taken as `+` (the caller's job).
    fn balanced(terms: &[(VExpr, bool, usize)]) -> Result<VExpr, ExprError> {
        if terms.len() == 1 {
            return Ok(terms[0].0.clone());
        }
        let mid = terms.len() / 2;
        let left = Self::balanced(&terms[..mid])?;
        // the right half relative to its first sign: a − (b − c) = a − b + c
        let flip = terms[mid].1;
        let right: Vec<_> = terms[mid..]
            .iter()
            .map(|(e, minus, off)| (e.clone(), *minus != flip, *off))
            .collect();
        let right = Self::balanced(&right)?;
        VExpr::sum(left, right, flip).map_err(Self::at(terms[mid].2))
    }
    fn term(&mut self) -> Result<VExpr, ExprError> {
        let mut a = self.unary()?;
        loop {
            let c = match self.peek() {
                Some(b'*') if self.s.get(self.pos + 1) != Some(&b'*') => b'*',
                Some(b'/') => b'/',
                _ => break,
            };
            let off = self.pos;
            self.pos += 1;
            let b = self.unary()?;
            a = if c == b'*' {
                VExpr::product(a, b)
            } else {
                VExpr::quotient(a, b)
            }
            .map_err(Self::at(off))?;
            if a.size() > MAX_SIZE {
                self.check_size(&a, off)?;
            }
        }
        Ok(a)
    }
    fn unary(&mut self) -> Result<VExpr, ExprError> {
        if self.nesting >= MAX_NESTING {
            return Err(self.err(format!(
                "parentheses, signs or powers nested more than {MAX_NESTING} deep"
            )));
        }
        self.nesting += 1;
        let e = self.unary_inner();
        self.nesting -= 1;
        let e = e?;
        // products and powers grow without nesting: stop them early
        if e.size() > MAX_SIZE {
            self.check_size(&e, self.pos)?;
        }
        Ok(e)
    }
    fn unary_inner(&mut self) -> Result<VExpr, ExprError> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                Ok(VExpr::negative(self.unary()?))
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()
            }
            _ => self.power(),
        }
    }
    fn power(&mut self) -> Result<VExpr, ExprError> {
        let a = self.postfix()?;
        if self.peek() == Some(b'*') && self.s.get(self.pos + 1) == Some(&b'*') {
            let off = self.pos;
            self.pos += 2;
            let b = self.unary()?;
            if a.vector || b.vector {
                return Err(Self::at(off)(
                    "** takes scalars (for |v|² write dot(v, v))".into(),
                ));
            }
            return Ok(VExpr::new(Node::Pow(a, b), false).fold());
        }
        Ok(a)
    }
    fn postfix(&mut self) -> Result<VExpr, ExprError> {
        let mut a = self.atom()?;
        while self.peek() == Some(b'.') {
            let off = self.pos;
            self.pos += 1;
            let k = match self.s.get(self.pos) {
                Some(b'x') => 0,
                Some(b'y') if self.dim >= 2 => 1,
                Some(b'z') if self.dim == 3 => 2,
                _ => {
                    return Err(Self::at(off)(format!(
                        "expected a component after '.': {}",
                        ["x", "x or y", "x, y or z"][self.dim.clamp(1, 3) - 1]
                    )));
                }
            };
            self.pos += 1;
            a = VExpr::comp(a, k).map_err(Self::at(off))?;
        }
        Ok(a)
    }
    /// A member of a body (`Arm.Tip`, `Arm.i`, `Arm.Tip'`) after the name just read: the
    /// longest dotted name that stands for something (otherwise `.x` is a component, read by
    /// `postfix`).
    fn member(&mut self, mut name: String) -> String {
        let mut end = self.pos;
        while self.s.get(end) == Some(&b'.') {
            let Some(len) = name_char(self.s, end + 1, true) else {
                break;
            };
            let mut e = end + 1 + len;
            while let Some(len) = name_char(self.s, e, false) {
                e += len;
            }
            let member = std::str::from_utf8(&self.s[end + 1..e]).unwrap_or("");
            let dotted = format!("{name}.{member}");
            if (self.lookup)(&dotted).is_none() {
                break;
            }
            name = dotted;
            end = e;
        }
        self.pos = end;
        name
    }
    fn args(&mut self) -> Result<Vec<VExpr>, ExprError> {
        self.pos += 1; // '('
        let mut args = vec![self.expr()?];
        while self.peek() == Some(b',') {
            self.pos += 1;
            args.push(self.expr()?);
        }
        self.expect(b')', "after the arguments")?;
        Ok(args)
    }
    /// `[a, b]` or `[a, b, c]`: as many scalar components as the dimension (a 2D vector's
    /// third is 0).
    fn vector_literal(&mut self) -> Result<VExpr, ExprError> {
        let off = self.pos;
        self.pos += 1;
        let mut items = vec![self.expr()?];
        while self.peek() == Some(b',') {
            self.pos += 1;
            items.push(self.expr()?);
        }
        self.expect(b']', "after the components")?;
        if items.len() != self.dim {
            return Err(Self::at(off)(format!(
                "a vector has {} components here (Dimension {}), found {}",
                self.dim,
                self.dim,
                items.len()
            )));
        }
        if items.iter().any(|e| e.vector) {
            return Err(Self::at(off)("vector components must be scalars".into()));
        }
        if items.len() == 2 {
            items.push(VExpr::constant(0.0));
        }
        let [a, b, d] = [items[0].clone(), items[1].clone(), items[2].clone()];
        Ok(VExpr::pack([a, b, d]))
    }
    /// The call `name(args…)` at byte `start`: a scalar function ([`FUNCS`]), `atan2`, `dot`,
    /// `cross`, `perp`, `norm` or `unit`, each with its count and kinds of arguments checked.
    fn call(&mut self, name: String, start: usize) -> Result<VExpr, ExprError> {
        let here = Self::at(start);
        let args = self.args()?;
        let want = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(here(format!(
                    "{name} takes {n} argument(s), got {}",
                    args.len()
                )))
            }
        };
        let scalar = |e: &VExpr| {
            if e.vector {
                Err(here(format!("{name} takes a scalar, got a vector")))
            } else {
                Ok(())
            }
        };
        if let Some(&(_, f)) = FUNCS.iter().find(|(n, _)| *n == name) {
            want(1)?;
            scalar(&args[0])?;
            let e = VExpr::new(Node::F(f, args[0].clone()), false).fold();
            if args[0].is_const() && e.as_const().is_none() {
                return Err(here(format!("{name} is not defined here")));
            }
            return Ok(e);
        }
        let (a, b) = (args[0].clone(), args.get(1).cloned());
        match name.as_str() {
            "atan2" => {
                want(2)?;
                scalar(&args[0])?;
                scalar(&args[1])?;
                Ok(VExpr::new(Node::Atan2(a, b.expect("two")), false).fold())
            }
            "dot" => {
                want(2)?;
                VExpr::dot(a, b.expect("two")).map_err(here)
            }
            "cross" => {
                want(2)?;
                if self.dim != 3 {
                    return Err(here("cross needs Dimension 3 (in 2D use perp)".into()));
                }
                VExpr::cross(a, b.expect("two")).map_err(here)
            }
            "perp" => {
                want(1)?;
                if !a.vector || self.dim != 2 {
                    return Err(here("perp takes a vector in Dimension 2".into()));
                }
                Ok(VExpr::new(Node::Perp(a), true).fold())
            }
            "norm" | "unit" => {
                want(1)?;
                if !a.vector {
                    return Err(here(format!("{name} takes a vector")));
                }
                let n = VExpr::new(Node::Norm(a.clone()), false).fold();
                if name == "norm" {
                    Ok(n)
                } else {
                    VExpr::quotient(a, n).map_err(here)
                }
            }
            _ => Err(here(format!(
                "unknown function '{name}' (known: dot cross perp norm unit sqrt sin cos tan asin acos atan atan2 exp ln abs)"
            ))),
        }
    }
    fn atom(&mut self) -> Result<VExpr, ExprError> {
        let c = self
            .peek()
            .ok_or_else(|| self.err("expression ends too early".into()))?;
        if c == b'(' {
            self.pos += 1;
            let e = self.expr()?;
            self.expect(b')', "")?;
            return Ok(e);
        }
        if c == b'[' {
            return self.vector_literal();
        }
        if c.is_ascii_digit() || c == b'.' {
            return lex_number(self.s, &mut self.pos).map(VExpr::constant);
        }
        if let Some(len) = name_char(self.s, self.pos, true) {
            let start = self.pos;
            self.pos += len;
            while let Some(len) = name_char(self.s, self.pos, false) {
                self.pos += len;
            }
            let name = std::str::from_utf8(&self.s[start..self.pos])
                .unwrap_or("")
                .to_string();
            let name = self.member(name);
            let here = Self::at(start);
            if self.peek() == Some(b'(') {
                return self.call(name, start);
            }
            return match name.as_str() {
                "pi" => Ok(VExpr::constant(std::f64::consts::PI)),
                "t" => Ok(VExpr::time()),
                _ => match (self.lookup)(&name) {
                    Some(Sym::Param(x)) => Ok(VExpr::constant(x)),
                    Some(Sym::Item(e)) => Ok(e),
                    None => Err(here(format!("undefined name '{name}'"))),
                },
            };
        }
        Err(self.err(format!("unexpected '{}'", c as char)))
    }
}

/// The length in bytes of the character at `pos` of the UTF-8 text `s` when it may stand in a
/// name there: a letter (any script: `θ`, `Ä`) or `_` first, then letters, digits, `_` or `'`.
fn name_char(s: &[u8], pos: usize, first: bool) -> Option<usize> {
    let b = *s.get(pos)?;
    if b.is_ascii() {
        let ok =
            b.is_ascii_alphabetic() || b == b'_' || (!first && (b.is_ascii_digit() || b == b'\''));
        return ok.then_some(1);
    }
    let window = &s[pos..(pos + 4).min(s.len())];
    let text = match std::str::from_utf8(window) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&window[..e.valid_up_to()]).ok()?,
    };
    let c = text.chars().next()?;
    let ok = c.is_alphabetic() || (!first && c.is_alphanumeric());
    ok.then_some(c.len_utf8())
}
