//! The sizes of the interpreter's scratch stores, in slots: the stack and the registers a
//! program may need, the temporaries, the chain points' and the (value, tangent) pairs' slots.
//! Every other file of the expression engine reads them here, and this file reads none of
//! them.

/// The most intermediate values an evaluation may hold at once (see the module notes).
pub const MAX_NEED: u32 = 32;

/// Stack slots for expressions of small need (most of them): a smaller frame.
pub(super) const SMALL: usize = 8;

/// The most shared subexpressions a program keeps (the largest are kept; others are
/// recomputed where they are used).
pub const MAX_SHARED: usize = 16;

/// Registers for programs with few shared subexpressions: a smaller frame.
pub(super) const FEW: usize = 4;

/// Scratch slots besides the stack's and the registers': the parts of a cross product and of
/// a sum with constant weights.
pub(super) const TEMPS: usize = 4;

/// The stack's depth for a program that needs more than [`SMALL`] values.
pub(super) const BIG: usize = MAX_NEED as usize;
/// The scratch stores' sizes in slots (three per stack value and register, and the
/// temporaries), by the stack (small, big) and the registers (few, many) a program needs.
pub(super) const SF: usize = 3 * (SMALL + FEW) + TEMPS;
pub(super) const SM: usize = 3 * (SMALL + MAX_SHARED) + TEMPS;
pub(super) const BF: usize = 3 * (BIG + FEW) + TEMPS;
pub(super) const BM: usize = 3 * (BIG + MAX_SHARED) + TEMPS;
/// The sizes for programs that read chain points: small or big stack, many registers, and
/// the chain's slots before the temporaries.
pub(super) const CS: usize = SM + CHAIN_SLOTS;
pub(super) const CB: usize = BM + CHAIN_SLOTS;

/// Scratch slots of the underlying store after the pairs.
pub(super) const TANGENT_TEMPS: usize = 4;

/// Temporaries of one position's evaluation.
pub(super) const POS_TEMPS: usize = 14;

/// Scratch slots a program that reads chain points keeps for them: a velocity's evaluation on
/// (value, tangent) pairs — the point and the temporaries, two slots each — and the pairs'
/// own temporaries.
pub(super) const CHAIN_SLOTS: usize = 2 * (3 + POS_TEMPS) + TANGENT_TEMPS;

/// The most slots a store has (the largest program's pairs of value and tangent, and their
/// temporaries), a whole number of the written-bitmask's words.
pub(super) const MAX_SLOTS: usize = (2 * CB + TANGENT_TEMPS).next_multiple_of(64);
