//! The playground in Russian, Chinese and German. The simulation and the page write English; a
//! text is translated where it is shown, through a catalog that maps each English text to its
//! translation. Most texts are sentences with names and numbers in them, so a catalog's key may
//! be a template, `{}` for each name or number ("{} went down: {}"); a text matching it is
//! translated with its pieces put where the translation's `{0}`, `{1}` say, numbers written the
//! language's way, and a piece that is itself a sentence translated in turn. `{1:форма|формы|форм}`
//! picks the word form for the number in piece 1 by the language's plural rules (CLDR).
//!
//! Nothing in a run depends on the language: the same scenario gives the same run, only its
//! words differ. Left out: right-to-left scripts, languages other than these four, and the
//! Kubernetes messages the playground quotes (an apiserver's refusal, the scheduler's "0/5 nodes
//! are available"), which clusters answer in English whatever the reader's language.

use std::borrow::Cow;

/// A language of the page and the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    En,
    Ru,
    Zh,
    De,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::En, Lang::Ru, Lang::Zh, Lang::De];

    /// The code of `?lang=` and `--lang`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
            Lang::Zh => "zh",
            Lang::De => "de",
        }
    }

    /// Its own name, as the picker shows it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ru => "Русский",
            Lang::Zh => "中文",
            Lang::De => "Deutsch",
        }
    }

    pub fn parse(code: &str) -> Result<Lang, String> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code() == code)
            .ok_or_else(|| {
                format!("unknown language \"{code}\" (the languages are en, ru, zh, de)")
            })
    }

    /// The first of the browser's languages (`navigator.languages`: "de-AT", "zh-CN", …) the
    /// playground speaks; English when none.
    pub fn from_browser<'a>(tags: impl IntoIterator<Item = &'a str>) -> Lang {
        tags.into_iter()
            .find_map(|t| {
                let primary = t.split(['-', '_']).next().unwrap_or("");
                Lang::parse(&primary.to_ascii_lowercase()).ok()
            })
            .unwrap_or(Lang::En)
    }

    /// The CLDR plural category of a number (its whole part, and whether it has a fraction) as
    /// an index into a translation's word forms: Russian one / few / many (fractions take the
    /// "few" form: 1,5 секунды), German one / other, Chinese a single form.
    pub fn plural_form(self, whole: u64, fraction: bool) -> usize {
        match self {
            Lang::Ru => {
                let (m10, m100) = (whole % 10, whole % 100);
                if fraction || ((2..=4).contains(&m10) && !(12..=14).contains(&m100)) {
                    1
                } else if m10 == 1 && m100 != 11 {
                    0
                } else {
                    2
                }
            }
            Lang::De | Lang::En => usize::from(fraction || whole != 1),
            Lang::Zh => 0,
        }
    }

    /// How many word forms a plural choice has in this language.
    pub fn plural_forms(self) -> usize {
        match self {
            Lang::Ru => 3,
            Lang::De | Lang::En => 2,
            Lang::Zh => 1,
        }
    }

    /// A number written in English ("1,000.5") the language's way: German "1.000,5", Russian
    /// "1 000,5" (a no-break space), Chinese as English. Anything else is returned as it is.
    pub fn number<'a>(self, english: &'a str) -> Cow<'a, str> {
        if !is_number(english) || matches!(self, Lang::En | Lang::Zh) {
            return Cow::Borrowed(english);
        }
        let thousands = if self == Lang::De { "." } else { "\u{a0}" };
        let mut out = String::with_capacity(english.len() + 2);
        for c in english.chars() {
            match c {
                ',' => out.push_str(thousands),
                '.' => out.push(','),
                c => out.push(c),
            }
        }
        Cow::Owned(out)
    }
}

/// Digits with English separators: "7", "1,000", "2.5", "-3".
fn is_number(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    b.first().is_some_and(u8::is_ascii_digit)
        && b.last().is_some_and(u8::is_ascii_digit)
        && b.iter()
            .all(|&c| c.is_ascii_digit() || c == b',' || c == b'.')
        && b.iter().filter(|&&c| c == b'.').count() <= 1
}

/// A number written in English as its whole part and whether it has a fraction (integers only:
/// parsing floats would bring the float parser into the page's bundle).
fn english_number(s: &str) -> Option<(u64, bool)> {
    if !is_number(s) {
        return None;
    }
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    let digits: String = whole.chars().filter(char::is_ascii_digit).collect();
    let whole = digits.parse().unwrap_or(u64::MAX);
    Some((whole, fraction.chars().any(|c| c != '0')))
}

/// One piece of a translation.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Text(String),
    /// The template's piece `i`.
    Arg(usize),
    /// The word form for the number in piece `i`.
    Plural(usize, Vec<String>),
}

/// A key with `{}` in it and its translation.
#[derive(Clone, Debug)]
struct Template {
    /// The English text around the pieces: one more than there are pieces.
    around: Vec<String>,
    translation: Vec<Piece>,
}

impl Template {
    /// The pieces of `text` if it is this template, leftmost first.
    fn matches<'t>(&self, text: &'t str) -> Option<Vec<&'t str>> {
        let (first, rest) = self.around.split_first()?;
        let text = text.strip_prefix(first.as_str())?;
        let mut pieces = Vec::with_capacity(rest.len());
        fill(text, rest, &mut pieces)?;
        Some(pieces)
    }

    fn literal_len(&self) -> usize {
        self.around.iter().map(String::len).sum()
    }
}

/// Splits `text` into non-empty pieces each followed by the next of `around` (the last ending the text).
fn fill<'t>(text: &'t str, around: &[String], pieces: &mut Vec<&'t str>) -> Option<()> {
    let (next, rest) = around.split_first()?;
    if rest.is_empty() {
        let piece = text.strip_suffix(next.as_str())?;
        if piece.is_empty() {
            return None;
        }
        pieces.push(piece);
        return Some(());
    }
    // A piece is never empty: the search starts after the text's first character.
    let mut from = text.chars().next()?.len_utf8();
    while from <= text.len() {
        let at = from + text[from..].find(next.as_str())?;
        pieces.push(&text[..at]);
        if fill(&text[at + next.len()..], rest, pieces).is_some() {
            return Some(());
        }
        pieces.pop();
        from = at + 1;
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    None
}

/// A language's translations.
#[derive(Clone, Debug)]
pub struct Catalog {
    lang: Lang,
    /// Texts without pieces and their translations. Looked up one by one: a few hundred
    /// comparisons cost less than a hash map's code in the page's bundle.
    exact: Vec<(String, String)>,
    templates: Vec<Template>,
}

impl Catalog {
    /// English: every text as it is.
    pub fn english() -> Catalog {
        Catalog {
            lang: Lang::En,
            exact: Vec::new(),
            templates: vec![],
        }
    }

    /// A catalog from its text: entries apart by a blank line, each the English text on one line
    /// and its translation on the next (`#` starts a comment line). Refused, naming the key,
    /// when a translation uses a piece the key does not have, leaves one out, or gives a plural
    /// choice the wrong number of forms.
    pub fn parse(lang: Lang, text: &str) -> Result<Catalog, String> {
        Catalog::build::<true>(lang, text)
    }

    /// A catalog checked already ([`Catalog::parse`] in the tests and the runner): the page
    /// takes its language's this way, without the checks' code in its bundle. A broken entry
    /// is read as well as it can be, never refused.
    pub fn load(lang: Lang, text: &str) -> Catalog {
        Catalog::build::<false>(lang, text).unwrap_or_else(|_| Catalog::english())
    }

    /// Reads a catalog; with `CHECK`, refuses a broken entry (without, the checks and their
    /// messages are compiled out and a broken entry is skipped).
    fn build<const CHECK: bool>(lang: Lang, text: &str) -> Result<Catalog, String> {
        let mut c = Catalog {
            lang,
            exact: Vec::new(),
            templates: vec![],
        };
        let mut seen: Vec<&str> = Vec::new();
        let mut lines =
            (text.lines().enumerate()).filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
        let code = lang.code();
        while let Some((n, key)) = lines.next() {
            let line = n + 1;
            let Some((_, value)) = lines.next() else {
                if CHECK {
                    return Err(format!(
                        "{code}: line {line}: \"{key}\" has no translation on the next line"
                    ));
                }
                break;
            };
            if CHECK {
                if seen.contains(&key) {
                    return Err(format!("{code}: line {line}: \"{key}\" is there twice"));
                }
                seen.push(key);
            }
            let around = split_key(key);
            let translation = match parse_translation::<CHECK>(value) {
                Ok(t) => t,
                Err(e) if CHECK => return Err(format!("{code}: \"{key}\": {e}")),
                Err(_) => continue,
            };
            let n = around.len() - 1;
            let mut used = vec![false; n];
            for p in &translation {
                let (Piece::Arg(i) | Piece::Plural(i, _)) = p else {
                    continue;
                };
                if *i >= n {
                    if CHECK {
                        return Err(format!(
                            "{code}: \"{key}\": the translation uses {{{i}}}, the text has {n} piece(s)"
                        ));
                    }
                    continue;
                }
                if let Piece::Plural(_, forms) = p {
                    if CHECK && forms.len() != lang.plural_forms() {
                        return Err(format!(
                            "{code}: \"{key}\": a plural choice needs {} forms, it has {}",
                            lang.plural_forms(),
                            forms.len()
                        ));
                    }
                }
                used[*i] |= matches!(p, Piece::Arg(_));
            }
            if CHECK {
                if let Some(i) = used.iter().position(|u| !u) {
                    return Err(format!(
                        "{code}: \"{key}\": the translation leaves out {{{i}}}"
                    ));
                }
            }
            if n == 0 {
                c.exact.push((key.to_string(), value.to_string()));
            } else if !CHECK || used.iter().all(|&u| u) {
                c.templates.push(Template {
                    around,
                    translation,
                });
            }
        }
        Ok(c)
    }

    /// The translation of a text without names or numbers in it, if the catalog has one.
    pub fn exact(&self, english: &str) -> Option<&str> {
        (self.exact.iter())
            .find(|(k, _)| k == english)
            .map(|(_, v)| v.as_str())
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// `english` in this catalog's language; as it is when the catalog has no translation.
    pub fn text<'a>(&self, english: &'a str) -> Cow<'a, str> {
        match self.translate(english) {
            Some(t) => Cow::Owned(t),
            None => Cow::Borrowed(english),
        }
    }

    /// Whether the catalog translates `english` (English itself translates everything).
    pub fn translates(&self, english: &str) -> bool {
        self.lang == Lang::En || self.translate(english).is_some()
    }

    fn translate(&self, english: &str) -> Option<String> {
        if self.lang == Lang::En {
            return None;
        }
        if let Some(t) = self.exact(english) {
            return Some(t.to_string());
        }
        // The most specific template: the one with the most English text of its own.
        let mut best: Option<(&Template, Vec<&str>)> = None;
        for t in &self.templates {
            if best
                .as_ref()
                .is_some_and(|(b, _)| b.literal_len() >= t.literal_len())
            {
                continue;
            }
            if let Some(pieces) = t.matches(english) {
                best = Some((t, pieces));
            }
        }
        let (t, pieces) = best?;
        let mut out = String::with_capacity(english.len() * 2);
        for p in &t.translation {
            match p {
                Piece::Text(s) => out.push_str(s),
                Piece::Arg(i) => out.push_str(&self.piece(pieces[*i])),
                Piece::Plural(i, forms) => {
                    let (whole, fraction) = english_number(pieces[*i]).unwrap_or((5, false));
                    out.push_str(&forms[self.lang.plural_form(whole, fraction)]);
                }
            }
        }
        Some(out)
    }

    /// A piece of a template put into its translation: a number the language's way, a word the
    /// catalog has or a sentence (it has spaces; names never do) translated in turn.
    fn piece<'a>(&self, piece: &'a str) -> Cow<'a, str> {
        if is_number(piece) {
            return self.lang.number(piece);
        }
        if let Some(word) = self.exact(piece) {
            return Cow::Owned(word.to_string());
        }
        if piece.contains(' ') {
            return self.text(piece);
        }
        Cow::Borrowed(piece)
    }

    /// Every key, as written in the catalog (templates with `{}`).
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.exact.iter().map(|(k, _)| k.clone()).collect();
        keys.extend(self.templates.iter().map(|t| t.around.join("{}")));
        keys.sort();
        keys
    }
}

/// The English text around each `{}` of a key.
fn split_key(key: &str) -> Vec<String> {
    key.split("{}").map(str::to_string).collect()
}

/// A translation's pieces: text, `{i}`, `{i:form|form}`.
fn parse_translation<const CHECK: bool>(s: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = vec![];
    let mut parts = s.split('{');
    let mut text = parts.next().unwrap_or_default();
    loop {
        if CHECK && text.contains('}') {
            return Err("a \"}\" without its \"{\"".into());
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text.to_string()));
        }
        let Some(part) = parts.next() else {
            return Ok(pieces);
        };
        let Some((inner, rest)) = part.split_once('}') else {
            return Err(if CHECK {
                "a \"{\" without its \"}\"".into()
            } else {
                String::new()
            });
        };
        let (index, forms) = match inner.split_once(':') {
            Some((i, forms)) => (i, Some(forms)),
            None => (inner, None),
        };
        let Ok(i) = index.parse::<usize>() else {
            return Err(if CHECK {
                format!("\"{{{inner}}}\" is not a piece: write {{0}}, {{1}}, … or {{0:form|form}}")
            } else {
                String::new()
            });
        };
        pieces.push(match forms {
            Some(f) => Piece::Plural(i, f.split('|').map(str::to_string).collect()),
            None => Piece::Arg(i),
        });
        text = rest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ru() -> Catalog {
        Catalog::parse(
            Lang::Ru,
            "# a comment\n{} went down: {}\n{0} упал: {1}\n\nthe scenario crashed it\nсценарий его уронил\n\n\
             only {} of the {} etcd members are up\nработают только {0} из {1} {1:участника|участников|участников} etcd\n\n\
             {} pods\n{0} {0:под|пода|подов}\n",
        )
        .unwrap()
    }

    #[test]
    fn a_template_translates_its_pieces_in_turn() {
        assert_eq!(
            ru().text("m1 went down: the scenario crashed it"),
            "m1 упал: сценарий его уронил"
        );
        // A sentence the catalog lacks stays English (the coverage tests find those).
        assert_eq!(ru().text("m1 went down: who knows"), "m1 упал: who knows");
        assert_eq!(ru().text("nothing like it"), "nothing like it");
        assert!(!ru().translates("nothing like it"));
    }

    #[test]
    fn a_piece_may_start_with_any_letter() {
        let c = Catalog::parse(Lang::Ru, "etcd {}, term {}\netcd: {0}, терм {1}").unwrap();
        assert_eq!(
            c.text("etcd остановлен, term 2"),
            "etcd: остановлен, терм 2"
        );
        assert_eq!(c.text("etcd 领导者, term 2"), "etcd: 领导者, терм 2");
    }

    #[test]
    fn russian_plurals_follow_cldr() {
        let c = ru();
        for (n, form) in [
            (1, "под"),
            (2, "пода"),
            (5, "подов"),
            (11, "подов"),
            (12, "подов"),
            (21, "под"),
            (22, "пода"),
            (25, "подов"),
            (111, "подов"),
        ] {
            assert_eq!(c.text(&format!("{n} pods")), format!("{n} {form}"));
        }
        assert_eq!(
            c.text("only 1 of the 3 etcd members are up"),
            "работают только 1 из 3 участников etcd"
        );
        assert_eq!(
            c.text("only 1 of the 21 etcd members are up"),
            "работают только 1 из 21 участника etcd"
        );
        assert_eq!(Lang::De.plural_form(1, false), 0);
        assert_eq!(Lang::De.plural_form(2, false), 1);
        assert_eq!(Lang::De.plural_form(1, true), 1);
        assert_eq!(Lang::Ru.plural_form(1, true), 1);
    }

    #[test]
    fn numbers_are_written_the_languages_way() {
        assert_eq!(Lang::De.number("1,000.5"), "1.000,5");
        assert_eq!(Lang::Ru.number("1,000.5"), "1\u{a0}000,5");
        assert_eq!(Lang::Zh.number("1,000.5"), "1,000.5");
        assert_eq!(Lang::De.number("10.0.0.1"), "10.0.0.1");
        assert_eq!(Lang::De.number("m1"), "m1");
        assert_eq!(ru().text("2.5 pods"), "2,5 пода");
    }

    #[test]
    fn a_broken_translation_is_refused_naming_its_key() {
        let e = Catalog::parse(Lang::Ru, "{} went down\nупал").unwrap_err();
        assert!(
            e.contains("\"{} went down\"") && e.contains("leaves out {0}"),
            "{e}"
        );
        let e = Catalog::parse(Lang::Ru, "{} went down\n{1} упал").unwrap_err();
        assert!(e.contains("uses {1}"), "{e}");
        let e = Catalog::parse(Lang::Ru, "{} pods\n{0} {0:под|пода}").unwrap_err();
        assert!(e.contains("needs 3 forms"), "{e}");
        let e = Catalog::parse(Lang::Ru, "a\nб\n\nc").unwrap_err();
        assert_eq!(e, "ru: line 4: \"c\" has no translation on the next line");
        let e = Catalog::parse(Lang::Ru, "a\nб\n\na\nв").unwrap_err();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn the_browser_language_picks_a_supported_one() {
        assert_eq!(Lang::from_browser(["fr-FR", "de-AT", "ru"]), Lang::De);
        assert_eq!(Lang::from_browser(["zh-CN"]), Lang::Zh);
        assert_eq!(Lang::from_browser(["fr"]), Lang::En);
        assert_eq!(
            Lang::parse("fr").unwrap_err(),
            "unknown language \"fr\" (the languages are en, ru, zh, de)"
        );
    }

    #[test]
    fn the_most_specific_template_wins() {
        let c = Catalog::parse(
            Lang::De,
            "{} went down: {}\n{0} fiel aus: {1}\n\n\
             {} went down: its spot instance was reclaimed after the {}-minute notice\n\
             {0} fiel aus: seine Spot-Instanz wurde nach der {1}-minütigen Vorwarnung zurückgeholt",
        )
        .unwrap();
        assert_eq!(
            c.text("w1 went down: its spot instance was reclaimed after the 2-minute notice"),
            "w1 fiel aus: seine Spot-Instanz wurde nach der 2-minütigen Vorwarnung zurückgeholt"
        );
    }
}
