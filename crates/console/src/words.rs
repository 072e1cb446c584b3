//! A command line as a shell splits it: words separated by blanks; single quotes keep
//! everything, double quotes keep blanks, a backslash escapes the next character. Unquoted `;`,
//! `&&` and `&` end a command: run the next one after it, only if it succeeded, or at once with
//! this one in the background.

/// How a command on a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sep {
    /// `;` or the end of the line.
    Then,
    /// `&&`: the next command runs only if this one succeeded.
    And,
    /// `&`: this one runs in the background.
    Background,
}

/// The commands of a line, each with how it ends. Err: a quote left open, or a separator with
/// no command before it (as the shell refuses it).
pub fn commands(line: &str) -> Result<Vec<(Vec<String>, Sep)>, String> {
    let mut commands = Vec::new();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' | ';' | '&' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                let sep = match c {
                    ';' => Sep::Then,
                    '&' if chars.peek() == Some(&'&') => {
                        chars.next();
                        Sep::And
                    }
                    '&' => Sep::Background,
                    _ => continue,
                };
                if words.is_empty() {
                    let token = match sep {
                        Sep::Then => ";",
                        Sep::And => "&&",
                        Sep::Background => "&",
                    };
                    return Err(format!("syntax error near unexpected token `{token}'"));
                }
                commands.push((std::mem::take(&mut words), sep));
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
    match (words.is_empty(), commands.last()) {
        (false, _) => commands.push((words, Sep::Then)),
        // `a &&` waits for more input in a shell; here the line is all there is.
        (true, Some((_, Sep::And))) => {
            return Err("syntax error: unexpected end of line after `&&'".into())
        }
        (true, _) => {}
    }
    Ok(commands)
}

/// The words of a line of one command (separators are words here).
#[cfg(test)]
pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut all = Vec::new();
    for (words, _) in commands(line)? {
        all.extend(words);
    }
    Ok(all)
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
    fn separators_end_commands_unless_quoted() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            commands("kubectl proxy & curl localhost:8001; sleep 5 && curl 'a&b;c'").unwrap(),
            [
                (w(&["kubectl", "proxy"]), Sep::Background),
                (w(&["curl", "localhost:8001"]), Sep::Then),
                (w(&["sleep", "5"]), Sep::And),
                (w(&["curl", "a&b;c"]), Sep::Then),
            ]
        );
        assert_eq!(
            commands("kubectl proxy&").unwrap(),
            [(w(&["kubectl", "proxy"]), Sep::Background)]
        );
        assert!(commands("; ls").unwrap_err().contains("`;'"));
        assert!(commands("a & & b").unwrap_err().contains("`&'"));
        assert!(commands("a &&").is_err());
    }

    #[test]
    fn any_line_splits_or_is_refused_without_panicking() {
        // A small deterministic fuzz: every line over a hostile alphabet.
        let alphabet = [
            'a', ' ', '\'', '"', '\\', '\t', 'é', '<', '\0', '\n', '&', ';',
        ];
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
            let _ = commands(&line);
        }
        assert_eq!(clip(&"x".repeat(100)).chars().count(), 61);
        assert_eq!(clip("a\u{1b}[31mb"), "a[31mb");
    }
}
