//! A command line as a shell splits it: words separated by blanks; single quotes keep
//! everything, double quotes keep blanks, a backslash escapes the next character.

pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unterminated quote (')".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => return Err("unterminated quote (\")".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unterminated quote (\")".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Untrusted text inside a message: control characters dropped, cut short.
pub fn clip(s: &str) -> String {
    const MAX: usize = 60;
    let clean: String = s.chars().filter(|c| !c.is_control()).collect();
    if clean.chars().count() > MAX {
        clean
            .chars()
            .take(MAX)
            .chain(std::iter::once('…'))
            .collect()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_a_shell_does() {
        assert_eq!(
            split("kubectl  get\tnodes").unwrap(),
            ["kubectl", "get", "nodes"]
        );
        assert_eq!(
            split(r#"a 'b c' "d \"e\"" f\ g"#).unwrap(),
            ["a", "b c", "d \"e\"", "f g"]
        );
        assert_eq!(split("''").unwrap(), [""]);
        assert!(split("echo 'open").is_err());
        assert!(split("echo \"open").is_err());
        assert_eq!(split("   ").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn any_line_splits_or_is_refused_without_panicking() {
        // A small deterministic fuzz: every line over a hostile alphabet.
        let alphabet = ['a', ' ', '\'', '"', '\\', '\t', 'é', '<', '\0', '\n'];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut line = String::new();
            for _ in 0..(x % 12) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                line.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let _ = split(&line);
        }
        assert_eq!(clip(&"x".repeat(100)).chars().count(), 61);
        assert_eq!(clip("a\u{1b}[31mb"), "a[31mb");
    }
}
