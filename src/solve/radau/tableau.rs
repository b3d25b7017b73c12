//! The coefficients of Radau IIA with three stages (order 5; Hairer & Wanner, *Solving Ordinary
//! Differential Equations II*, §IV.8), and the transformation that splits its stage system into
//! one real and one complex system.
//!
//! `A⁻¹` has one real eigenvalue `μ_r` and a complex pair; with `T` from its real Schur-like
//! decomposition (`T⁻¹A⁻¹T = [μ_r 0 0; 0 α β; 0 −β α]`, the values of Hairer's `radau5.f`), the
//! stage unknowns `W = T⁻¹Z` decouple: `W₀` sees `μ_r`, and `W₁ + iW₂` sees `μ_c = α − iβ`
//! as one complex unknown.

// the digits of `radau5.f`, as published
#![allow(clippy::excessive_precision)]

/// `√6`.
const SQ6: f64 = 2.449_489_742_783_178;

/// Nodes `cᵢ` (the last is 1: the method is stiffly accurate).
pub const C: [f64; 3] = [(4.0 - SQ6) / 10.0, (4.0 + SQ6) / 10.0, 1.0];

/// The coefficients `aᵢⱼ`.
#[rustfmt::skip]
pub const A: [[f64; 3]; 3] = [
    [(88.0 - 7.0 * SQ6) / 360.0, (296.0 - 169.0 * SQ6) / 1800.0, (-2.0 + 3.0 * SQ6) / 225.0],
    [(296.0 + 169.0 * SQ6) / 1800.0, (88.0 + 7.0 * SQ6) / 360.0, (-2.0 - 3.0 * SQ6) / 225.0],
    [(16.0 - SQ6) / 36.0, (16.0 + SQ6) / 36.0, 1.0 / 9.0],
];

/// The weights of the error estimate `Σ eᵢ Zᵢ / h` (Hairer's `dd`, times `μ_r`'s scaling as in
/// `radau5.f`): with the starting slope, the difference of the method and an embedded one of
/// order 3.
pub const E: [f64; 3] = [
    (-13.0 - 7.0 * SQ6) / 3.0,
    (-13.0 + 7.0 * SQ6) / 3.0,
    -1.0 / 3.0,
];

/// The transformation `T` (columns: the real eigenvector, then the real and imaginary parts of
/// a complex one).
#[rustfmt::skip]
pub const T: [[f64; 3]; 3] = [
    [0.094_438_762_488_975_24, -0.141_255_295_020_954_21, 0.030_029_194_105_147_42],
    [0.250_213_122_965_333_32, 0.204_129_352_293_799_94, -0.382_942_112_757_261_92],
    [1.0, 1.0, 0.0],
];

/// `T⁻¹`.
#[rustfmt::skip]
pub const TI: [[f64; 3]; 3] = [
    [4.178_718_591_551_904_28, 0.327_682_820_761_062_37, 0.523_376_445_499_449_51],
    [-4.178_718_591_551_904_28, -0.327_682_820_761_062_37, 0.476_623_554_500_550_44],
    [0.502_872_634_945_786_82, -2.571_926_949_855_605_22, 0.596_039_204_828_224_92],
];

/// The collocation polynomial through `(0, 0)` and `(cᵢ, Zᵢ)`: `Σₖ (Σᵢ Zᵢ Pᵢₖ) xᵏ⁺¹`.
#[rustfmt::skip]
pub const P: [[f64; 3]; 3] = [
    [13.0 / 3.0 + 7.0 * SQ6 / 3.0, -23.0 / 3.0 - 22.0 * SQ6 / 3.0, 10.0 / 3.0 + 5.0 * SQ6],
    [13.0 / 3.0 - 7.0 * SQ6 / 3.0, -23.0 / 3.0 + 22.0 * SQ6 / 3.0, 10.0 / 3.0 - 5.0 * SQ6],
    [1.0 / 3.0, -8.0 / 3.0, 10.0 / 3.0],
];

/// What a step uses, derived once from the constants.
#[derive(Clone, Copy, Debug)]
pub struct Tableau {
    /// `A⁻¹`.
    pub ainv: [[f64; 3]; 3],
    /// The real eigenvalue of `A⁻¹`.
    pub mu_r: f64,
    /// The complex one, `(re, im)`, as it acts on `W₁ + iW₂`.
    pub mu_c: (f64, f64),
}

fn mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut c = [[0.0; 3]; 3];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

/// The inverse of a 3 × 3 matrix by cofactors.
fn inverse(a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let cof = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
    };
    let det: f64 = (0..3).map(|j| a[0][j] * cof(0, j)).sum();
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = cof(j, i) / det;
        }
    }
    inv
}

impl Tableau {
    /// `A⁻¹` and its eigenvalues from `T⁻¹A⁻¹T`.
    pub fn new() -> Self {
        let ainv = inverse(&A);
        let l = mul(&mul(&TI, &ainv), &T);
        Tableau {
            ainv,
            mu_r: l[0][0],
            mu_c: (l[1][1], l[2][1]),
        }
    }
}

/// `T⁻¹A⁻¹T` (for the tests: it must be block diagonal with a rotation–scaling block).
#[cfg(test)]
pub fn transformed() -> [[f64; 3]; 3] {
    mul(&mul(&TI, &inverse(&A)), &T)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transformation_splits_the_stage_matrix() {
        let l = transformed();
        let scale = 10.0;
        for (i, j) in [(0, 1), (0, 2), (1, 0), (2, 0)] {
            assert!(l[i][j].abs() < 1e-13 * scale, "({i},{j}) = {}", l[i][j]);
        }
        assert!((l[1][1] - l[2][2]).abs() < 1e-13 * scale);
        assert!((l[1][2] + l[2][1]).abs() < 1e-13 * scale);
        // Hairer's closed forms: μ_r = 3 + 3^(2/3) − 3^(1/3), μ_c = 3 + (3^(1/3) − 3^(2/3))/2 ∓ …
        let mu_r = 3.0 + 3f64.powf(2.0 / 3.0) - 3f64.cbrt();
        let alpha = 3.0 + 0.5 * (3f64.cbrt() - 3f64.powf(2.0 / 3.0));
        let beta = 0.5 * (3f64.powf(5.0 / 6.0) + 3f64.powf(7.0 / 6.0));
        let t = Tableau::new();
        assert!((t.mu_r - mu_r).abs() < 1e-13, "{} {}", t.mu_r, mu_r);
        assert!((t.mu_c.0 - alpha).abs() < 1e-13);
        assert!((t.mu_c.1.abs() - beta).abs() < 1e-13);
        // T T⁻¹ = I
        let i = mul(&T, &TI);
        for (r, row) in i.iter().enumerate() {
            for (c, x) in row.iter().enumerate() {
                assert!((x - f64::from(u8::from(r == c))).abs() < 1e-15 * 10.0);
            }
        }
        // A's rows sum to c (collocation), its last row is b with Σb = 1
        for (row, c) in A.iter().zip(C) {
            assert!((row.iter().sum::<f64>() - c).abs() < 1e-15);
        }
    }

    #[test]
    fn the_interpolant_passes_through_the_stages() {
        // Z = the stage values of y(x) = x³ (exactly representable by the cubic collocation
        // polynomial): Σᵢ Zᵢ Pᵢₖ must be (0, 0, 1).
        let z: Vec<f64> = C.iter().map(|c| c * c * c).collect();
        for k in 0..3 {
            let coef: f64 = (0..3).map(|i| z[i] * P[i][k]).sum();
            let want = if k == 2 { 1.0 } else { 0.0 };
            assert!((coef - want).abs() < 1e-13, "k = {k}: {coef}");
        }
    }
}
