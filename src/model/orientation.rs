//! A body's orientation from its rotation matrix: the unit quaternion and Euler angles of any
//! of the 24 sequences (12 axis orders, intrinsic or extrinsic), in the conventions of
//! `scipy.spatial.transform.Rotation` — upper-case letters (`"ZYX"`) name intrinsic
//! rotations about the turning body's axes, lower-case (`"xyz"`) extrinsic rotations about the
//! fixed axes — so angles compare directly with SciPy's `as_euler` and `as_quat`.
//!
//! A rotation matrix here is nalgebra's `Matrix3<f64>` with the body's axes as columns:
//! `r.column(0)` is the body's `x` axis in the outer frame (`R = [i j k]`, `x_outer = R x_body`).
//! The conversions are this module's own, not nalgebra's `Rotation3::euler_angles_ordered`:
//! that one takes the middle angle by `acos` (4e-11 off at 1e-7 from gimbal lock), calls a
//! rotation within 1e-6 of the lock locked (a ZYX rotation 1e-7 from it came back with its
//! first and third angles 0.4 rad off) and panics on the proper sequences (ZXZ); here every
//! angle is an `atan2` of two entries, exact to round-off up to 1e-12 from the lock.
//!
//! ```
//! use lagrangian::model::orientation::{EulerSequence, axis_rotation, quaternion};
//! let zyx = EulerSequence::parse("ZYX").unwrap();
//! let (yaw, pitch, roll) = (0.3, -0.2, 1.1);
//! let r = zyx.matrix([yaw, pitch, roll]); // Rz(yaw) Ry(pitch) Rx(roll)
//! let a = zyx.angles(&r);
//! assert!((a[0] - yaw).abs() < 1e-15 && (a[1] - pitch).abs() < 1e-15 && (a[2] - roll).abs() < 1e-15);
//! // a turn by θ about z is the quaternion (cos θ/2, 0, 0, sin θ/2)
//! let q = quaternion(&axis_rotation(2, 0.8));
//! assert!((q[0] - 0.4f64.cos()).abs() < 1e-15 && (q[3] - 0.4f64.sin()).abs() < 1e-15);
//! ```

/// A rotation matrix, `r[(row, col)]`, the body's axes as columns.
pub type Rotation = nalgebra::Matrix3<f64>;

/// The rotation by `angle` about coordinate axis `axis` (0 = x, 1 = y, 2 = z).
pub fn axis_rotation(axis: usize, angle: f64) -> Rotation {
    let (s, c) = angle.sin_cos();
    let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut r = Rotation::zeros();
    r[(axis, axis)] = 1.0;
    r[(j, j)] = c;
    r[(k, k)] = c;
    r[(k, j)] = s;
    r[(j, k)] = -s;
    r
}

/// The unit quaternion `(w, x, y, z)` of a rotation matrix, `w ≥ 0` (Shepperd's method: from
/// the largest of `w², x², y², z²`, exact to round-off for every rotation). A rotation is
/// also `−q`: a run keeps the sign continuous from row to row.
pub fn quaternion(r: &Rotation) -> [f64; 4] {
    let trace = r[(0, 0)] + r[(1, 1)] + r[(2, 2)];
    // 4w², 4x², 4y², 4z² up to a common term: pick the largest
    let d = [trace, r[(0, 0)], r[(1, 1)], r[(2, 2)]];
    let big = (0..4).max_by(|&a, &b| d[a].total_cmp(&d[b])).unwrap_or(0);
    let mut q = [0.0; 4];
    if big == 0 {
        let s = (1.0 + trace).max(0.0).sqrt() * 2.0; // 4w
        q = [
            0.25 * s,
            (r[(2, 1)] - r[(1, 2)]) / s,
            (r[(0, 2)] - r[(2, 0)]) / s,
            (r[(1, 0)] - r[(0, 1)]) / s,
        ];
    } else {
        let i = big - 1;
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let s = (1.0 + r[(i, i)] - r[(j, j)] - r[(k, k)]).max(0.0).sqrt() * 2.0; // 4 q_i
        q[0] = (r[(k, j)] - r[(j, k)]) / s;
        q[1 + i] = 0.25 * s;
        q[1 + j] = (r[(j, i)] + r[(i, j)]) / s;
        q[1 + k] = (r[(k, i)] + r[(i, k)]) / s;
    }
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let sign = if q[0] < 0.0 { -1.0 } else { 1.0 };
    q.map(|x| sign * x / n)
}

/// An Euler-angle sequence: three axes (no two neighbours equal), intrinsic or extrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EulerSequence {
    /// The axes in the order the angles are given (0 = x, 1 = y, 2 = z).
    pub axes: [usize; 3],
    /// About the turning body's axes (`"ZYX"`) rather than the fixed ones (`"zyx"`).
    pub intrinsic: bool,
}

impl EulerSequence {
    /// Read `"ZYX"`, `"zxz"`, …: three letters of `xyz`, all upper-case (intrinsic) or all
    /// lower-case (extrinsic), no letter next to itself.
    pub fn parse(text: &str) -> Result<EulerSequence, String> {
        let bad = || {
            format!(
                "'{text}' is not an Euler sequence: three axes such as ZYX or ZXZ (upper case: \
                 about the body's axes as it turns) or xyz (lower case: about the fixed axes), \
                 no axis twice in a row"
            )
        };
        let b = text.as_bytes();
        if b.len() != 3 {
            return Err(bad());
        }
        let upper = b.iter().all(u8::is_ascii_uppercase);
        let lower = b.iter().all(u8::is_ascii_lowercase);
        if !(upper || lower) {
            return Err(bad());
        }
        let mut axes = [0; 3];
        for (a, c) in axes.iter_mut().zip(b) {
            *a = match c.to_ascii_lowercase() {
                b'x' => 0,
                b'y' => 1,
                b'z' => 2,
                _ => return Err(bad()),
            };
        }
        if axes[0] == axes[1] || axes[1] == axes[2] {
            return Err(bad());
        }
        Ok(EulerSequence {
            axes,
            intrinsic: upper,
        })
    }

    /// The sequence as written (`"ZYX"`, `"xyz"`).
    pub fn name(&self) -> String {
        let letters = self.axes.map(|a| [b'x', b'y', b'z'][a]);
        let s: String = letters.iter().map(|&c| c as char).collect();
        if self.intrinsic { s.to_uppercase() } else { s }
    }

    /// The rotation of angles `a`: intrinsic `R = R₁(a₁) R₂(a₂) R₃(a₃)`, extrinsic
    /// `R = R₃(a₃) R₂(a₂) R₁(a₁)` (`Rₖ` about the k-th axis of the sequence).
    pub fn matrix(&self, a: [f64; 3]) -> Rotation {
        let r = |k: usize| axis_rotation(self.axes[k], a[k]);
        if self.intrinsic {
            r(0) * r(1) * r(2)
        } else {
            r(2) * r(1) * r(0)
        }
    }

    /// The angles of rotation `r`: the first and last in `(−π, π]`, the middle one in
    /// `[−π/2, π/2]` (three different axes) or `[0, π]` (first axis = last). Where the first
    /// and third axes line up (the middle angle at ±π/2, resp. 0 or π: gimbal lock) only their
    /// sum or difference is defined: the third angle is then 0, as in SciPy.
    pub fn angles(&self, r: &Rotation) -> [f64; 3] {
        if self.intrinsic {
            intrinsic(self.axes, r, false)
        } else {
            // the extrinsic rotations about i, j, k are the intrinsic ones about k, j, i
            let [a, b, c] = intrinsic([self.axes[2], self.axes[1], self.axes[0]], r, true);
            [c, b, a]
        }
    }
}

/// The angles of `R = R_i(a) R_j(b) R_k(c)`; at gimbal lock `c = 0`, or `a = 0` when
/// `zero_first`.
fn intrinsic([i, j, k]: [usize; 3], r: &Rotation, zero_first: bool) -> [f64; 3] {
    let proper = i == k;
    // the axis that is neither i nor j, and the sign of the permutation (i, j, l)
    let l = 3 - i - j;
    let e = if (i + 1) % 3 == j { 1.0 } else { -1.0 };
    let (mut a, b, mut c);
    let lock;
    if proper {
        // R[i][i] = cos b; R[j][i] = sin a sin b, R[l][i] = −e cos a sin b;
        // R[i][j] = sin b sin c, R[i][l] = e sin b cos c
        let s = r[(i, j)].hypot(r[(i, l)]);
        b = s.atan2(r[(i, i)]);
        lock = s < 1e-12;
        a = r[(j, i)].atan2(-e * r[(l, i)]);
        c = r[(i, j)].atan2(e * r[(i, l)]);
    } else {
        // k = l; R[i][k] = e sin b; R[j][k] = −e sin a cos b, R[k][k] = cos a cos b;
        // R[i][j] = −e cos b sin c, R[i][i] = cos b cos c
        let cb = r[(i, i)].hypot(r[(i, j)]);
        b = (e * r[(i, k)]).atan2(cb);
        lock = cb < 1e-12;
        a = (-e * r[(j, k)]).atan2(r[(k, k)]);
        c = (-e * r[(i, j)]).atan2(r[(i, i)]);
    }
    if lock && zero_first {
        // a = 0: R = R_j(b) R_k(c), whose j-th row is (R_k(−c) e_j)ᵀ
        a = 0.0;
        c = match proper {
            true => (-e * r[(j, l)]).atan2(r[(j, j)]),
            false => (e * r[(j, i)]).atan2(r[(j, j)]),
        };
    } else if lock {
        // c = 0: R = R_i(a) R_j(b), whose j-th column is R_i(a) e_j
        c = 0.0;
        a = (e * r[(l, j)]).atan2(r[(j, j)]);
    }
    [a, b, c]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDERS: [&str; 12] = [
        "xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz",
    ];

    fn close(a: &Rotation, b: &Rotation) -> f64 {
        (a - b).abs().max()
    }

    /// Angles of every sequence give back their matrix, and the angles of a matrix are the ones
    /// it was made of, within the ranges (also at and near gimbal lock).
    #[test]
    fn euler_round_trips() {
        let mut n = 0;
        for order in ORDERS {
            for name in [order.to_string(), order.to_uppercase()] {
                let s = EulerSequence::parse(&name).unwrap();
                assert_eq!(s.name(), name);
                let proper = s.axes[0] == s.axes[2];
                for k in 0..200 {
                    let x = k as f64;
                    let a = [(0.7 * x).sin() * 3.1, 0.0, (1.3 * x + 0.4).cos() * 3.1];
                    let mid = if proper {
                        1.5 + 1.5 * (0.9 * x).sin()
                    } else {
                        1.5 * (0.9 * x).sin()
                    };
                    let mut a = [a[0], mid, a[2]];
                    if k % 50 == 7 {
                        a[1] = if proper {
                            0.0
                        } else {
                            std::f64::consts::FRAC_PI_2
                        };
                    }
                    let r = s.matrix(a);
                    let back = s.angles(&r);
                    assert!(
                        close(&s.matrix(back), &r) < 1e-13,
                        "{name} {a:?} → {back:?}"
                    );
                    if k % 50 != 7 {
                        for m in 0..3 {
                            assert!((back[m] - a[m]).abs() < 1e-11, "{name} {a:?} → {back:?}");
                        }
                    } else {
                        assert_eq!(
                            back[2], 0.0,
                            "{name}: gimbal lock sets the third angle to 0"
                        );
                    }
                    n += 1;
                }
            }
        }
        assert_eq!(n, 24 * 200);
    }

    /// A rotation 1e-7 rad from gimbal lock keeps its three angles (nalgebra's
    /// `euler_angles_ordered` calls it locked and returns the first and third 0.4 rad off), and
    /// a proper sequence 1e-7 from its lock too (nalgebra's panics on ZXZ).
    #[test]
    fn angles_near_gimbal_lock_are_exact() {
        let half_pi = std::f64::consts::FRAC_PI_2;
        for (seq, mid) in [
            ("ZYX", half_pi - 1e-7),
            ("ZYX", -half_pi + 1e-7),
            ("ZXZ", 1e-7),
        ] {
            let s = EulerSequence::parse(seq).unwrap();
            let a = [0.3, mid, -0.4];
            let back = s.angles(&s.matrix(a));
            for m in 0..3 {
                assert!((back[m] - a[m]).abs() < 1e-8, "{seq} {a:?} → {back:?}");
            }
        }
    }

    /// Known values: intrinsic ZYX equals extrinsic xyz with the angles reversed; a quarter
    /// turn about each axis.
    #[test]
    fn conventions() {
        let a = [0.3, -0.5, 1.2];
        let zyx = EulerSequence::parse("ZYX").unwrap().matrix(a);
        let xyz = EulerSequence::parse("xyz")
            .unwrap()
            .matrix([a[2], a[1], a[0]]);
        assert!(close(&zyx, &xyz) < 1e-15);
        // Rz(π/2) takes x to y
        let r = axis_rotation(2, std::f64::consts::FRAC_PI_2);
        assert!((r[(1, 0)] - 1.0).abs() < 1e-15 && r[(0, 0)].abs() < 1e-15);
        for bad in ["ZYx", "zz", "zzx", "abc", "xyzx", "XXY"] {
            assert!(EulerSequence::parse(bad).is_err(), "{bad}");
        }
    }

    /// The quaternion gives back its matrix, `R = I + 2w[v]× + 2[v]×²`, for rotations near
    /// each of Shepperd's four branches, including half turns.
    #[test]
    fn quaternions() {
        let s = EulerSequence::parse("ZXZ").unwrap();
        for k in 0..400 {
            let x = k as f64;
            let a = [
                (0.37 * x).sin() * 3.1,
                1.5 + 1.64 * (0.21 * x).cos(),
                2.0 * x,
            ];
            let r = s.matrix(a);
            let [w, qx, qy, qz] = quaternion(&r);
            assert!(w >= 0.0);
            assert!(((w * w + qx * qx + qy * qy + qz * qz) - 1.0).abs() < 1e-15);
            let m = Rotation::new(
                1.0 - 2.0 * (qy * qy + qz * qz),
                2.0 * (qx * qy - w * qz),
                2.0 * (qx * qz + w * qy),
                2.0 * (qx * qy + w * qz),
                1.0 - 2.0 * (qx * qx + qz * qz),
                2.0 * (qy * qz - w * qx),
                2.0 * (qx * qz - w * qy),
                2.0 * (qy * qz + w * qx),
                1.0 - 2.0 * (qx * qx + qy * qy),
            );
            assert!(close(&m, &r) < 1e-14, "{a:?}");
        }
        // a half turn about x
        let q = quaternion(&axis_rotation(0, std::f64::consts::PI));
        assert!((q[1].abs() - 1.0).abs() < 1e-15 && q[0].abs() < 1e-15);
    }
}
