//! A small line-based unified diff for `--dry-run` (settings files are small; no extra crate).

/// Unified diff of two texts with 3 lines of context; empty when they are equal.
/// `None` stands for a file that does not exist.
pub fn unified(label: &str, old: Option<&str>, new: Option<&str>) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.map(|t| t.lines().collect()).unwrap_or_default();
    let b: Vec<&str> = new.map(|t| t.lines().collect()).unwrap_or_default();
    let ops = edit_script(&a, &b);
    let sep = if label.starts_with('/') { "" } else { "/" };
    let mut out = format!(
        "--- {}\n+++ {}\n",
        if old.is_some() {
            format!("a{sep}{label}")
        } else {
            "/dev/null".into()
        },
        if new.is_some() {
            format!("b{sep}{label}")
        } else {
            "/dev/null".into()
        }
    );
    // Group into hunks with 3 lines of context.
    const CTX: usize = 3;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, o)| !matches!(o, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(CTX);
        let mut end = changed[i];
        while i < changed.len() && changed[i] <= end + 2 * CTX {
            end = changed[i];
            i += 1;
        }
        let end = (end + CTX + 1).min(ops.len());
        let (mut a0, mut b0) = (1, 1);
        for o in &ops[..start] {
            match o {
                Op::Same(..) => {
                    a0 += 1;
                    b0 += 1
                }
                Op::Del(_) => a0 += 1,
                Op::Add(_) => b0 += 1,
            }
        }
        let mut body = String::new();
        let (mut an, mut bn) = (0, 0);
        for o in &ops[start..end] {
            match o {
                Op::Same(l) => {
                    an += 1;
                    bn += 1;
                    body.push_str(&format!(" {l}\n"))
                }
                Op::Del(l) => {
                    an += 1;
                    body.push_str(&format!("-{l}\n"))
                }
                Op::Add(l) => {
                    bn += 1;
                    body.push_str(&format!("+{l}\n"))
                }
            }
        }
        let a_start = if an == 0 { a0 - 1 } else { a0 };
        let b_start = if bn == 0 { b0 - 1 } else { b0 };
        out.push_str(&format!("@@ -{a_start},{an} +{b_start},{bn} @@\n{body}"));
    }
    out
}

enum Op<'a> {
    Same(&'a str),
    Del(&'a str),
    Add(&'a str),
}

fn edit_script<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    // Trim the common prefix and suffix, then LCS on what is left (bounded).
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<Op> = a[..pre].iter().map(|l| Op::Same(l)).collect();
    if am.len().saturating_mul(bm.len()) > 4_000_000 {
        ops.extend(am.iter().map(|l| Op::Del(l)));
        ops.extend(bm.iter().map(|l| Op::Add(l)));
    } else {
        let (n, m) = (am.len(), bm.len());
        let mut t = vec![0u32; (n + 1) * (m + 1)];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                t[i * (m + 1) + j] = if am[i] == bm[j] {
                    t[(i + 1) * (m + 1) + j + 1] + 1
                } else {
                    t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && am[i] == bm[j] {
                ops.push(Op::Same(am[i]));
                i += 1;
                j += 1;
            } else if i < n && (j == m || t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]) {
                ops.push(Op::Del(am[i]));
                i += 1;
            } else {
                ops.push(Op::Add(bm[j]));
                j += 1;
            }
        }
    }
    ops.extend(a[a.len() - suf..].iter().map(|l| Op::Same(l)));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_diff() {
        let d = unified("f", Some("a\nb\nc\n"), Some("a\nB\nc\nd\n"));
        assert_eq!(d, "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n");
        assert_eq!(unified("f", Some("x"), Some("x")), "");
        assert!(unified("f", None, Some("x\n"))
            .starts_with("--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n"));
    }
}
