//! Where a key path stands in a YAML (or TOML) text, for error messages (`file:line:column`).
//!
//! serde's YAML values carry no positions, so the loader finds keys again in the text: each key
//! of the path is searched, as a mapping key (block `key:` or flow `{ key: …, key2 }`), after the
//! position of its parent. Good enough for error messages; it never fails (falls back to the
//! parent's position).

/// 1-based `(line, column)` of the last key of `path` found in `text`.
pub fn locate(text: &str, path: &[String]) -> (usize, usize) {
    let mut pos = 0usize;
    for key in path {
        // an index into a block sequence (`- item` lines below the parent), else a key
        let item = match key.parse::<usize>() {
            Ok(k) => find_item(text, k, pos),
            Err(_) => None,
        };
        if let Some(p) = item.or_else(|| find_key(text, key, pos)) {
            pos = p;
        } else {
            break;
        }
    }
    line_col(text, pos)
}

/// 1-based line and column of byte offset `pos`.
pub fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(text.len());
    let before = &text[..pos];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(pos, |nl| pos - nl - 1) + 1;
    (line, col)
}

/// The start of item `k` (0-based) of the block sequence on the lines after the one holding
/// `from` (`- item` lines indented deeper than it; none: `None`).
fn find_item(text: &str, k: usize, from: usize) -> Option<usize> {
    let from = from.min(text.len());
    let line_start = text[..from].rfind('\n').map_or(0, |i| i + 1);
    let indent = |line: &str| line.len() - line.trim_start_matches(' ').len();
    let parent = indent(&text[line_start..]);
    let mut at = text[from..].find('\n').map(|i| from + i + 1)?;
    let (mut dash, mut count) = (None, 0);
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = &text[at..end];
        let body = line.trim_start_matches(' ');
        if !(body.is_empty() || body.starts_with('#')) {
            let ind = indent(line);
            let is_dash = body == "-" || body.starts_with("- ");
            let ours = is_dash && dash.is_none_or(|d| d == ind);
            if ind < parent || (ind == parent && !ours) {
                return None;
            }
            if ours {
                dash = Some(ind);
                if count == k {
                    return Some(at + ind + 1);
                }
                count += 1;
            }
        }
        at = end + 1;
    }
    None
}

fn find_key(text: &str, key: &str, from: usize) -> Option<usize> {
    if key.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut start = from.min(text.len());
    while let Some(rel) = text.get(start..)?.find(key) {
        let p = start + rel;
        let before_ok = p == 0
            || matches!(
                bytes[p - 1],
                b' ' | b'\t' | b'\n' | b'{' | b'[' | b',' | b'-' | b'"' | b'\'' | b'.'
            );
        let mut e = p + key.len();
        if e < bytes.len() && matches!(bytes[e], b'"' | b'\'') {
            e += 1;
        }
        while e < bytes.len() && bytes[e] == b' ' {
            e += 1;
        }
        // `key:` (YAML) or `key =` (TOML)
        let after_ok =
            e >= bytes.len() || matches!(bytes[e], b':' | b',' | b'}' | b']' | b'\n' | b'=');
        // skip comments
        let line_start = text[..p].rfind('\n').map_or(0, |i| i + 1);
        let in_comment = text[line_start..p].contains('#');
        if before_ok && after_ok && !in_comment {
            return Some(p);
        }
        start = p + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_block_and_flow_keys() {
        let t =
            "A: 1\nPartData:\n  Springs:\n    AB: [k, l]   # AB: x\n  Fixed: { O: [0, 0], Q: 1 }\n";
        let p = |v: &[&str]| locate(t, &v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(p(&["PartData", "Springs", "AB"]), (4, 5));
        assert_eq!(p(&["PartData", "Fixed", "Q"]), (5, 23));
        assert_eq!(p(&["PartData", "Nope"]), (2, 1));
        // items of block sequences, also at the parent's indentation
        let t = "Output:\n  columns:\n    - energies\n    # a note\n    - h: 1\nX:\n- a\n- b: 2\n";
        let p = |v: &[&str]| locate(t, &v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(p(&["Output", "columns", "1", "h"]), (5, 7));
        assert_eq!(p(&["Output", "columns", "0"]), (3, 6));
        assert_eq!(p(&["X", "1", "b"]), (8, 3));
    }
}
