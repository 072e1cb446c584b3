//! kubectl's table layout and its AGE. Columns are aligned as Go's `text/tabwriter` aligns
//! them with kubectl's settings (`printers.GetNewTabWriter`: minimum cell width 6, padding 3,
//! spaces): each cell but a row's last is padded to its column's widest cell plus 3. AGE is
//! `duration.HumanDuration` of k8s.io/apimachinery.

const MIN_WIDTH: usize = 6;
const PADDING: usize = 3;

/// The rows (the header first), aligned, one line each.
pub fn layout(rows: &[Vec<String>]) -> String {
    align(rows, MIN_WIDTH, PADDING)
}

/// Rows aligned as a tabwriter with minimum cell width `min` and padding `pad` aligns them
/// (`kubectl describe` writes with 0 and 2).
pub fn align(rows: &[Vec<String>], min: usize, pad: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter()
            .filter(|r| c + 1 < r.len())
            .map(|r| r[c].chars().count() + pad)
            .max()
            .unwrap_or(0)
            .max(min)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut out = String::new();
    for r in rows {
        for (c, cell) in r.iter().enumerate() {
            out.push_str(cell);
            if c + 1 < r.len() {
                let pad = widths[c] - cell.chars().count();
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
    out
}

/// Lines laid out as Go's tabwriter does in `describe` (padding 2): each run of lines that hold
/// a tab is one block, in which every cell but a line's last is padded to its column's widest.
pub fn tabwrite(lines: &[String]) -> String {
    let mut out = String::new();
    let mut block: Vec<Vec<String>> = Vec::new();
    // An empty line at the end flushes the last block; its own newline is taken off after.
    for line in lines.iter().flat_map(|l| l.split('\n')).chain([""]) {
        if line.contains('\t') {
            block.push(line.split('\t').map(String::from).collect());
            continue;
        }
        out.push_str(&align(&block, 0, 2));
        block.clear();
        out.push_str(line);
        out.push('\n');
    }
    out.truncate(out.len() - 1);
    out
}

/// `HumanDuration`: the age kubectl prints, from whole seconds.
pub fn human_duration(seconds: f64) -> String {
    if seconds < -1.0 {
        return "<invalid>".into();
    }
    let s = seconds.max(0.0).floor() as u64;
    let (m, h) = (s / 60, s / 3600);
    if s < 60 * 2 {
        format!("{s}s")
    } else if m < 10 {
        match s % 60 {
            0 => format!("{m}m"),
            r => format!("{m}m{r}s"),
        }
    } else if m < 60 * 3 {
        format!("{m}m")
    } else if h < 8 {
        match m % 60 {
            0 => format!("{h}h"),
            r => format!("{h}h{r}m"),
        }
    } else if h < 48 {
        format!("{h}h")
    } else if h < 24 * 8 {
        match h % 24 {
            0 => format!("{}d", h / 24),
            r => format!("{}d{r}h", h / 24),
        }
    } else if h < 24 * 365 * 2 {
        format!("{}d", h / 24)
    } else if h < 24 * 365 * 8 {
        match (h / 24) % 365 {
            0 => format!("{}y", h / 24 / 365),
            d => format!("{}y{d}d", h / 24 / 365),
        }
    } else {
        format!("{}y", h / 24 / 365)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_as_kubectl_prints_them() {
        let rows = vec![
            vec!["NAME".into(), "STATUS".into(), "ROLES".into(), "AGE".into()],
            vec![
                "m1".into(),
                "Ready".into(),
                "control-plane".into(),
                "10m".into(),
            ],
            vec![
                "worker-10".into(),
                "NotReady".into(),
                "<none>".into(),
                "9m59s".into(),
            ],
        ];
        assert_eq!(
            layout(&rows),
            "NAME        STATUS     ROLES           AGE\n\
             m1          Ready      control-plane   10m\n\
             worker-10   NotReady   <none>          9m59s\n"
        );
        // A narrow column is still 6 wide.
        assert_eq!(layout(&[vec!["A".into(), "B".into()]]), "A     B\n");
    }

    #[test]
    fn ages_follow_human_duration() {
        for (s, age) in [
            (0.0, "0s"),
            (59.9, "59s"),
            (119.0, "119s"),
            (120.0, "2m"),
            (125.0, "2m5s"),
            (599.0, "9m59s"),
            (600.0, "10m"),
            (179.0 * 60.0, "179m"),
            (3.0 * 3600.0, "3h"),
            (3.0 * 3600.0 + 60.0, "3h1m"),
            (8.0 * 3600.0, "8h"),
            (47.0 * 3600.0, "47h"),
            (48.0 * 3600.0, "2d"),
            (50.0 * 3600.0, "2d2h"),
            (8.0 * 86400.0, "8d"),
            (800.0 * 86400.0, "2y70d"),
        ] {
            assert_eq!(human_duration(s), age, "{s} s");
        }
    }
}
