//! Secret-shape redaction: every string a writer records passes through [`redact`] first.
//!
//! A secret is recognised by its *shape* (a vendor prefix, a PEM armour line, a key name
//! in an assignment), never by entropy alone, so commit ids, content hashes, UUIDs and
//! majordomus ids pass untouched. Each shape found is replaced by `[redacted: <shape>]`;
//! [`SHAPES`] lists the names. Where only part of a match is secret, only that part goes:
//! `DB_PASSWORD=[redacted: secret-assignment]`, `https://ada:[redacted: url-password]@host`,
//! `Authorization: Bearer [redacted: bearer-token]`, so the record still reads.
//!
//! Terminal control characters are removed before secrets are looked for (an escape
//! sequence cannot split a token to hide it). Where a control was removed the text is
//! read both ways, so one cannot join a token to the word beside it to hide it either
//! (`x\x07AKIA...`): ESC sequences (CSI, OSC, DCS and the other
//! string sequences, two-byte escapes), C0 controls other than `\n` and `\t` (`\r`
//! included), DEL and C1. Their removal is reported as `control-characters`.
//!
//! # Assignments
//!
//! `KEY=value`, `KEY = value` and `key: value` are secret when the key names one:
//! it contains `password`, `passwd`, `passphrase`, `secret`, `token`, `api_key`/`apikey`,
//! `private_key` or `credential(s)` (any case, `_`/`-`/camelCase), ending a word
//! (`max_tokens`, `tokenizer`, `passwordless` do not count) and not qualified by a
//! trailing word that makes it metadata (`TOKEN_TTL`, `PASSWORD_FILE`,
//! `MIN_PASSWORD_LENGTH`, `SECRET_NAME`; see `METADATA_WORDS`). Only the value is
//! replaced. To keep code and prose readable:
//!
//! - a value that continues into a call, index or block (`let token = lexer.next();`) or
//!   ends a statement after a spaced `=` (`token = other;`) is code, not a secret;
//! - `key: value` in the middle of a line is only a secret when the key is quoted (JSON)
//!   or the value mixes letters and digits (six characters or more), so "the password:
//!   we hash it" survives; at the start of a line (YAML, headers) the rest of the line is
//!   the value;
//! - placeholders survive: empty values, `<...>`, `${...}`, `{{...}}`, `$VAR`, `%VAR%`,
//!   masks (`****`, `xxxx`, `...`), `your-...`/`your_...`, an existing marker, and the
//!   words in `PLACEHOLDER_WORDS` (`changeme`, `example`, `secret`, `null`, `true`, ...).
//!   The same rule applies to URL passwords and `Authorization` credentials.
//!
//! # Cost
//!
//! No regex and no set-up: each shape is anchored on a literal (`ghp_`, `AKIA`, `://`,
//! `-----BEGIN `, `password`, ...), found with the standard substring search, and the
//! shape's matcher runs only where its anchor occurs. Clean text costs one substring
//! search per anchor and one lower-cased copy for the case-insensitive anchors, on the
//! first call as on every other.
//!
//! # Precedence
//!
//! [`SHAPES`] is in order of precedence: where two shapes match at the same place the
//! earlier one names the marker, and overlapping matches are replaced as one span.

use std::borrow::Cow;
use std::ops::{Range, RangeInclusive};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use serde::Serialize;

/// What redaction removed: the cleaned text and the shapes found (sorted, unique).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redacted {
    pub text: String,
    pub shapes: Vec<&'static str>,
}

impl Redacted {
    /// True when nothing was removed.
    pub fn is_clean(&self) -> bool {
        self.shapes.is_empty()
    }
}

/// Replaces every secret shape with `[redacted: <shape>]` and removes terminal control
/// characters (shape name `control-characters`); newlines and tabs are kept.
pub fn redact(text: &str) -> Redacted {
    let (clean, cuts) = strip_controls(text);
    let had_controls = cuts.is_some();
    let hits = secret_hits(&clean, cuts.as_deref().unwrap_or_default());
    let shapes = shape_names(&hits, had_controls);
    let text = if hits.is_empty() {
        clean.into_owned()
    } else {
        splice(&clean, &hits)
    };
    Redacted { text, shapes }
}

/// The shapes `text` carries without changing it (used by pre-push to refuse a pushed
/// record that still carries one). Always equal to `redact(text).shapes`.
pub fn find_shapes(text: &str) -> Vec<&'static str> {
    let (clean, cuts) = strip_controls(text);
    shape_names(
        &secret_hits(&clean, cuts.as_deref().unwrap_or_default()),
        cuts.is_some(),
    )
}

/// Every shape name this module knows, for docs and tests, in order of precedence.
pub const SHAPES: &[&str] = &{
    let mut names = [""; Shape::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Shape::ALL[i].name();
        i += 1;
    }
    names
};

/// The shapes, in order of precedence (the derived `Ord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    GcpServiceAccountKey,
    PrivateKey,
    AwsAccessKeyId,
    AwsSecretAccessKey,
    GoogleApiKey,
    AzureAccountKey,
    GithubToken,
    GitlabToken,
    SlackWebhook,
    SlackToken,
    StripeKey,
    AnthropicKey,
    OpenaiKey,
    NpmToken,
    PypiToken,
    HuggingfaceToken,
    SendgridKey,
    TwilioKey,
    DigitaloceanToken,
    ShopifyToken,
    Jwt,
    BasicAuth,
    BearerToken,
    UrlPassword,
    SecretAssignment,
    ControlCharacters,
}

impl Shape {
    const ALL: [Shape; 26] = [
        Shape::GcpServiceAccountKey,
        Shape::PrivateKey,
        Shape::AwsAccessKeyId,
        Shape::AwsSecretAccessKey,
        Shape::GoogleApiKey,
        Shape::AzureAccountKey,
        Shape::GithubToken,
        Shape::GitlabToken,
        Shape::SlackWebhook,
        Shape::SlackToken,
        Shape::StripeKey,
        Shape::AnthropicKey,
        Shape::OpenaiKey,
        Shape::NpmToken,
        Shape::PypiToken,
        Shape::HuggingfaceToken,
        Shape::SendgridKey,
        Shape::TwilioKey,
        Shape::DigitaloceanToken,
        Shape::ShopifyToken,
        Shape::Jwt,
        Shape::BasicAuth,
        Shape::BearerToken,
        Shape::UrlPassword,
        Shape::SecretAssignment,
        Shape::ControlCharacters,
    ];

    const fn name(self) -> &'static str {
        match self {
            Shape::GcpServiceAccountKey => "gcp-service-account-key",
            Shape::PrivateKey => "private-key",
            Shape::AwsAccessKeyId => "aws-access-key-id",
            Shape::AwsSecretAccessKey => "aws-secret-access-key",
            Shape::GoogleApiKey => "google-api-key",
            Shape::AzureAccountKey => "azure-account-key",
            Shape::GithubToken => "github-token",
            Shape::GitlabToken => "gitlab-token",
            Shape::SlackWebhook => "slack-webhook",
            Shape::SlackToken => "slack-token",
            Shape::StripeKey => "stripe-key",
            Shape::AnthropicKey => "anthropic-key",
            Shape::OpenaiKey => "openai-key",
            Shape::NpmToken => "npm-token",
            Shape::PypiToken => "pypi-token",
            Shape::HuggingfaceToken => "huggingface-token",
            Shape::SendgridKey => "sendgrid-key",
            Shape::TwilioKey => "twilio-key",
            Shape::DigitaloceanToken => "digitalocean-token",
            Shape::ShopifyToken => "shopify-token",
            Shape::Jwt => "jwt",
            Shape::BasicAuth => "basic-auth",
            Shape::BearerToken => "bearer-token",
            Shape::UrlPassword => "url-password",
            Shape::SecretAssignment => "secret-assignment",
            Shape::ControlCharacters => "control-characters",
        }
    }
}

/// A span of the control-free text to replace, and the shape that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    start: usize,
    end: usize,
    shape: Shape,
}

/// How a rule's anchors are searched.
enum Case {
    /// In the text as written (vendor prefixes are case-sensitive).
    Exact,
    /// In the ASCII-lower-cased text; such anchors are written in lower case.
    Folded,
}

/// How a rule reads the text at one occurrence of its anchor.
enum Matcher {
    /// The anchor is a prefix starting a word, followed by a run of `body` bytes whose
    /// length lies in `len` and which ends a word; `generated` also asks the run to look
    /// machine-made (see [`looks_generated`]). The whole token is replaced.
    Token {
        body: fn(u8) -> bool,
        len: RangeInclusive<usize>,
        generated: bool,
    },
    /// A hand-written reader given the anchor's span; returns the span to replace.
    At(fn(&Scan<'_>, Range<usize>) -> Option<Range<usize>>),
}

struct Rule {
    shape: Shape,
    anchors: &'static [&'static str],
    case: Case,
    matcher: Matcher,
}

const fn token(body: fn(u8) -> bool, len: RangeInclusive<usize>) -> Matcher {
    Matcher::Token {
        body,
        len,
        generated: false,
    }
}

const fn generated_token(body: fn(u8) -> bool, len: RangeInclusive<usize>) -> Matcher {
    Matcher::Token {
        body,
        len,
        generated: true,
    }
}

/// Key words that make an assignment's value a secret (lower case: searched folded).
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "private_key",
    "private-key",
    "privatekey",
    "credential",
    "credentials",
];

/// A key's last word that makes it metadata about a secret rather than the secret.
const METADATA_WORDS: &[&str] = &[
    "file",
    "path",
    "dir",
    "url",
    "uri",
    "endpoint",
    "host",
    "name",
    "type",
    "kind",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "lifetime",
    "length",
    "len",
    "size",
    "count",
    "limit",
    "min",
    "max",
    "header",
    "env",
    "var",
    "field",
    "prompt",
    "policy",
    "format",
    "pattern",
    "label",
    "hint",
];

/// Whole values that stand where a secret would go (compared case-insensitively).
const PLACEHOLDER_WORDS: &[&str] = &[
    "changeme",
    "change-me",
    "change_me",
    "changeit",
    "placeholder",
    "example",
    "redacted",
    "secret",
    "password",
    "token",
    "dummy",
    "fake",
    "todo",
    "tbd",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "empty",
];

static RULES: &[Rule] = &[
    Rule {
        shape: Shape::GcpServiceAccountKey,
        anchors: &["\"private_key\""],
        case: Case::Exact,
        matcher: Matcher::At(gcp_private_key_at),
    },
    Rule {
        shape: Shape::PrivateKey,
        anchors: &["-----BEGIN "],
        case: Case::Exact,
        matcher: Matcher::At(private_key_block_at),
    },
    Rule {
        shape: Shape::AwsAccessKeyId,
        anchors: &[
            "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA",
        ],
        case: Case::Exact,
        matcher: token(is_upper_alnum, 16..=16),
    },
    Rule {
        shape: Shape::AwsSecretAccessKey,
        anchors: &["secret"],
        case: Case::Folded,
        matcher: Matcher::At(aws_secret_access_key_at),
    },
    Rule {
        shape: Shape::GoogleApiKey,
        anchors: &["AIza"],
        case: Case::Exact,
        matcher: token(is_base64url, 35..=35),
    },
    Rule {
        shape: Shape::AzureAccountKey,
        anchors: &["accountkey=", "sharedaccesskey="],
        case: Case::Folded,
        matcher: Matcher::At(azure_account_key_at),
    },
    Rule {
        shape: Shape::GithubToken,
        anchors: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        case: Case::Exact,
        matcher: token(is_alnum, 36..=255),
    },
    Rule {
        shape: Shape::GithubToken,
        anchors: &["github_pat_"],
        case: Case::Exact,
        matcher: token(is_word, 82..=255),
    },
    Rule {
        shape: Shape::GitlabToken,
        anchors: &["glpat-"],
        case: Case::Exact,
        matcher: token(is_base64url, 20..=255),
    },
    Rule {
        shape: Shape::SlackWebhook,
        anchors: &[
            "https://hooks.slack.com/services/",
            "https://hooks.slack.com/workflows/",
            "https://hooks.slack.com/triggers/",
        ],
        case: Case::Exact,
        matcher: token(is_url_path, 10..=usize::MAX),
    },
    Rule {
        shape: Shape::SlackToken,
        anchors: &["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-"],
        case: Case::Exact,
        matcher: token(is_alnum_dash, 10..=255),
    },
    Rule {
        shape: Shape::StripeKey,
        anchors: &["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
        case: Case::Exact,
        matcher: token(is_alnum, 16..=255),
    },
    Rule {
        shape: Shape::AnthropicKey,
        anchors: &["sk-ant-"],
        case: Case::Exact,
        matcher: token(is_base64url, 20..=255),
    },
    Rule {
        shape: Shape::OpenaiKey,
        anchors: &["sk-"],
        case: Case::Exact,
        matcher: generated_token(is_base64url, 20..=255),
    },
    Rule {
        shape: Shape::NpmToken,
        anchors: &["npm_"],
        case: Case::Exact,
        matcher: token(is_alnum, 36..=36),
    },
    Rule {
        shape: Shape::PypiToken,
        anchors: &["pypi-AgEIcHlwaS5vcmc"],
        case: Case::Exact,
        matcher: token(is_base64url, 50..=usize::MAX),
    },
    Rule {
        shape: Shape::HuggingfaceToken,
        anchors: &["hf_"],
        case: Case::Exact,
        matcher: generated_token(is_alnum, 34..=64),
    },
    Rule {
        shape: Shape::SendgridKey,
        anchors: &["SG."],
        case: Case::Exact,
        matcher: Matcher::At(sendgrid_key_at),
    },
    Rule {
        shape: Shape::TwilioKey,
        anchors: &["SK"],
        case: Case::Exact,
        matcher: token(is_hex, 32..=32),
    },
    Rule {
        shape: Shape::DigitaloceanToken,
        anchors: &["dop_v1_", "doo_v1_", "dor_v1_"],
        case: Case::Exact,
        matcher: token(is_hex, 64..=64),
    },
    Rule {
        shape: Shape::ShopifyToken,
        anchors: &["shpat_", "shpss_", "shpca_", "shppa_"],
        case: Case::Exact,
        matcher: token(is_hex, 32..=32),
    },
    Rule {
        shape: Shape::Jwt,
        anchors: &["eyJ"],
        case: Case::Exact,
        matcher: Matcher::At(jwt_at),
    },
    Rule {
        shape: Shape::BasicAuth,
        anchors: &["authorization"],
        case: Case::Folded,
        matcher: Matcher::At(basic_authorization_at),
    },
    Rule {
        shape: Shape::BearerToken,
        anchors: &["authorization"],
        case: Case::Folded,
        matcher: Matcher::At(bearer_authorization_at),
    },
    Rule {
        shape: Shape::BearerToken,
        anchors: &["bearer"],
        case: Case::Folded,
        matcher: Matcher::At(bare_bearer_at),
    },
    Rule {
        shape: Shape::UrlPassword,
        anchors: &["://"],
        case: Case::Exact,
        matcher: Matcher::At(url_password_at),
    },
    Rule {
        shape: Shape::SecretAssignment,
        anchors: SECRET_WORDS,
        case: Case::Folded,
        matcher: Matcher::At(secret_assignment_at),
    },
];

/// The control-free text, and its ASCII-lower-cased twin (same byte offsets) for the
/// case-insensitive anchors.
struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    folded: String,
    /// Where control characters were removed (offsets into `text`, ascending): each is
    /// read both ways, as nothing (an escape splitting a token) and as a word boundary
    /// (a control joining a token to the word before or after it).
    cuts: &'a [usize],
}

impl Scan<'_> {
    /// True when `start` continues a word, read as written (a removed control between
    /// two word characters is a boundary, so it never continues one).
    fn starts_inside_word(&self, start: usize) -> bool {
        starts_inside_word(self.bytes, start) && self.cuts.binary_search(&start).is_err()
    }

    /// The first cut in `from..to`, if any.
    fn cut_within(&self, from: usize, to: usize) -> Option<usize> {
        let i = self.cuts.partition_point(|&c| c <= from);
        self.cuts.get(i).copied().filter(|&c| c < to)
    }
}

/// Every anchor of [`RULES`], each once, in two automata (as written and folded), and
/// the rules each anchor belongs to: one pass over a text finds every anchor, where a
/// search per anchor would pass over it some seventy times.
struct Anchors {
    exact: AhoCorasick,
    folded: AhoCorasick,
    /// Per pattern of `exact`, then of `folded`: the indices into [`RULES`] it anchors.
    exact_rules: Vec<Vec<usize>>,
    folded_rules: Vec<Vec<usize>>,
}

fn anchors() -> &'static Anchors {
    static ANCHORS: OnceLock<Anchors> = OnceLock::new();
    ANCHORS.get_or_init(|| {
        let mut exact: Vec<&'static str> = Vec::new();
        let mut folded: Vec<&'static str> = Vec::new();
        let mut exact_rules: Vec<Vec<usize>> = Vec::new();
        let mut folded_rules: Vec<Vec<usize>> = Vec::new();
        for (i, rule) in RULES.iter().enumerate() {
            let (patterns, rules) = match rule.case {
                Case::Exact => (&mut exact, &mut exact_rules),
                Case::Folded => (&mut folded, &mut folded_rules),
            };
            for anchor in rule.anchors {
                match patterns.iter().position(|p| p == anchor) {
                    Some(at) => rules[at].push(i),
                    None => {
                        patterns.push(anchor);
                        rules.push(vec![i]);
                    }
                }
            }
        }
        let build = |patterns: &[&str]| {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(patterns)
                .expect("the anchors are a handful of short literals")
        };
        Anchors {
            exact: build(&exact),
            folded: build(&folded),
            exact_rules,
            folded_rules,
        }
    })
}

/// Every secret span of `text`, sorted, overlapping matches merged.
fn secret_hits(text: &str, cuts: &[usize]) -> Vec<Hit> {
    let scan = Scan {
        text,
        bytes: text.as_bytes(),
        folded: text.to_ascii_lowercase(),
        cuts,
    };
    let anchors = anchors();
    let mut hits = Vec::new();
    for (automaton, haystack, rules) in [
        (&anchors.exact, text, &anchors.exact_rules),
        (&anchors.folded, scan.folded.as_str(), &anchors.folded_rules),
    ] {
        // Each anchor's occurrences as `str::match_indices` gives them: left to right, an
        // occurrence overlapping the previous one of the same anchor skipped. (Overlapping
        // search reports matches by end; an anchor's length is fixed, so by start too.)
        let mut next_free = vec![0usize; rules.len()];
        for m in automaton.find_overlapping_iter(haystack) {
            let pattern = m.pattern().as_usize();
            if m.start() < next_free[pattern] {
                continue;
            }
            next_free[pattern] = m.end();
            for &i in &rules[pattern] {
                let rule = &RULES[i];
                let found = m.start()..m.end();
                let span = match &rule.matcher {
                    Matcher::Token {
                        body,
                        len,
                        generated,
                    } => token_at(&scan, found, *body, len, *generated),
                    Matcher::At(read) => read(&scan, found),
                };
                if let Some(span) = span.filter(|span| !span.is_empty()) {
                    hits.push(Hit {
                        start: span.start,
                        end: span.end,
                        shape: rule.shape,
                    });
                }
            }
        }
    }
    merge(hits)
}

/// [`secret_hits`] as it was written first, one `match_indices` per anchor: the reference
/// the automaton is held to.
#[cfg(test)]
fn secret_hits_per_anchor(text: &str, cuts: &[usize]) -> Vec<Hit> {
    let scan = Scan {
        text,
        bytes: text.as_bytes(),
        folded: text.to_ascii_lowercase(),
        cuts,
    };
    let mut hits = Vec::new();
    for rule in RULES {
        let haystack = match rule.case {
            Case::Exact => text,
            Case::Folded => scan.folded.as_str(),
        };
        for anchor in rule.anchors {
            for (start, _) in haystack.match_indices(anchor) {
                let found = start..start + anchor.len();
                let span = match &rule.matcher {
                    Matcher::Token {
                        body,
                        len,
                        generated,
                    } => token_at(&scan, found, *body, len, *generated),
                    Matcher::At(read) => read(&scan, found),
                };
                if let Some(span) = span.filter(|span| !span.is_empty()) {
                    hits.push(Hit {
                        start: span.start,
                        end: span.end,
                        shape: rule.shape,
                    });
                }
            }
        }
    }
    merge(hits)
}

/// Sorts hits and merges overlapping ones; the earliest start, then the shape first in
/// precedence, names a merged span.
fn merge(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_unstable_by_key(|hit| (hit.start, hit.shape));
    let mut merged: Vec<Hit> = Vec::with_capacity(hits.len());
    for hit in hits {
        match merged.last_mut() {
            Some(last) if hit.start < last.end => last.end = last.end.max(hit.end),
            _ => merged.push(hit),
        }
    }
    merged
}

fn shape_names(hits: &[Hit], had_controls: bool) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = hits.iter().map(|hit| hit.shape.name()).collect();
    if had_controls {
        names.push(Shape::ControlCharacters.name());
    }
    names.sort_unstable();
    names.dedup();
    names
}

fn splice(text: &str, hits: &[Hit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for hit in hits {
        out.push_str(&text[from..hit.start]);
        out.push_str("[redacted: ");
        out.push_str(hit.shape.name());
        out.push(']');
        from = hit.end;
    }
    out.push_str(&text[from..]);
    out
}

// ---------------------------------------------------------------------------------------
// Matchers. Each returns byte offsets that fall on ASCII bytes or the text's ends, so
// every span is on `char` boundaries.

fn token_at(
    scan: &Scan<'_>,
    anchor: Range<usize>,
    body: fn(u8) -> bool,
    len: &RangeInclusive<usize>,
    generated: bool,
) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let matches = |end: usize, boundary: bool| {
        let run = &b[anchor.end..end];
        let ends_word = boundary || !b.get(end).is_some_and(u8::is_ascii_alphanumeric);
        len.contains(&run.len()) && ends_word && (!generated || looks_generated(run))
    };
    let end = bounded_run_end(b, anchor.end, *len.end(), body);
    if matches(end, false) {
        return Some(anchor.start..end);
    }
    // A removed control inside or right after the run may have joined the token to the
    // word after it: read the run up to that cut as a whole token too.
    let cut = scan.cut_within(anchor.end, end.saturating_add(1).min(b.len() + 1))?;
    matches(cut, true).then_some(anchor.start..cut)
}

/// `"private_key": "-----BEGIN ...` in a service-account JSON: the whole string value.
fn gcp_private_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    let colon = skip_whitespace(b, anchor.end);
    if b.get(colon) != Some(&b':') {
        return None;
    }
    let quote = skip_whitespace(b, colon + 1);
    if b.get(quote) != Some(&b'"') || !b[quote + 1..].starts_with(b"-----BEGIN") {
        return None;
    }
    // Unterminated on its line, the private-key block rule carries the span on.
    let end = closing_quote(b, quote + 1, b'"').unwrap_or_else(|| line_end(b, quote + 1));
    Some(quote + 1..end)
}

/// A PEM/OpenSSH/PGP private-key block through its END line, or to the end of the text
/// when the END line is missing.
fn private_key_block_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    let label_end = run_end(b, anchor.end, is_armor_label);
    let label = &b[anchor.end..label_end];
    let is_private = label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK");
    if !is_private || !b[label_end..].starts_with(b"-----") {
        return None;
    }
    let end = match find(scan.text, label_end + 5, "-----END ") {
        Some(end_line) => {
            let end_label = run_end(b, end_line + 9, is_armor_label);
            if b[end_label..].starts_with(b"-----") {
                end_label + 5
            } else {
                end_label
            }
        }
        None => b.len(),
    };
    Some(anchor.start..end)
}

/// `aws_secret_access_key = <40 base64>` (any case and separator style).
fn aws_secret_access_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let assignment = secret_assignment(scan, anchor)?;
    let key: String = scan.folded[assignment.key]
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let value = &scan.bytes[assignment.value.clone()];
    let is_aws_key = key.ends_with("secretaccesskey") || key.ends_with("awssecretkey");
    let is_aws_value = value.len() == 40 && value.iter().all(|&c| is_base64(c) && c != b'=');
    (is_aws_key && is_aws_value).then_some(assignment.value)
}

/// `AccountKey=<base64>` in an Azure connection string: the key only.
fn azure_account_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let end = run_end(b, anchor.end, is_base64);
    (end - anchor.end >= 20).then_some(anchor.end..end)
}

/// `SG.<22>.<43>`.
fn sendgrid_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let first = run_end(b, anchor.end, is_base64url);
    if first - anchor.end != 22 || b.get(first) != Some(&b'.') {
        return None;
    }
    let second = run_end(b, first + 1, is_base64url);
    (second - (first + 1) >= 43).then_some(anchor.start..second)
}

/// Three (or, for JWE, five) dot-separated base64url segments, header and payload both
/// JSON objects (`eyJ` is `{"` encoded).
fn jwt_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if anchor.start > 0 && is_base64url(b[anchor.start - 1]) {
        return None;
    }
    let header = run_end(b, anchor.start, is_base64url);
    if header - anchor.start < 10 || b.get(header) != Some(&b'.') {
        return None;
    }
    if !b[header + 1..].starts_with(b"eyJ") {
        return None;
    }
    let payload = run_end(b, header + 1, is_base64url);
    if payload - (header + 1) < 10 || b.get(payload) != Some(&b'.') {
        return None;
    }
    let mut end = run_end(b, payload + 1, is_base64url);
    while b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| is_base64url(c)) {
        end = run_end(b, end + 1, is_base64url);
    }
    Some(anchor.start..end)
}

fn basic_authorization_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let (scheme, credentials) = authorization(scan, anchor)?;
    (scheme == "basic").then_some(credentials)
}

fn bearer_authorization_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let (scheme, credentials) = authorization(scan, anchor)?;
    matches!(scheme, "bearer" | "token").then_some(credentials)
}

/// `Authorization: <scheme> <credentials>` (header, JSON or `=` form): the folded scheme
/// and the credentials' span.
fn authorization<'s>(scan: &'s Scan<'_>, anchor: Range<usize>) -> Option<(&'s str, Range<usize>)> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let mut i = anchor.end;
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    i = skip_blanks(b, i);
    if !matches!(b.get(i), Some(b':' | b'=')) {
        return None;
    }
    i = skip_blanks(b, i + 1);
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let scheme_end = run_end(b, i, |c| c.is_ascii_alphabetic());
    let scheme = &scan.folded[i..scheme_end];
    let start = skip_blanks(b, scheme_end);
    if start == scheme_end || marker_len(&b[start..]).is_some() {
        return None;
    }
    let end = run_end(b, start, |c| !is_value_end(c));
    let credentials = &scan.text[start..end];
    (credentials.len() >= 8 && !is_placeholder(credentials)).then_some((scheme, start..end))
}

/// `Bearer <token>` outside a header: the token must be long and look machine-made.
fn bare_bearer_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let start = skip_blanks(b, anchor.end);
    if start == anchor.end {
        return None;
    }
    let end = run_end(b, start, is_bearer_token);
    let run = &b[start..end];
    (run.len() >= 16 && looks_generated(run)).then_some(start..end)
}

/// `scheme://user:password@host`: the password only (the last `@` of the authority ends
/// it, as URL parsers read it).
fn url_password_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    let mut scheme = run_start(b, anchor.start, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')
    });
    // A removed control inside the run may have joined the scheme to the word before it.
    if !b[scheme].is_ascii_alphabetic()
        && let Some(&cut) = scan
            .cuts
            .iter()
            .rev()
            .find(|&&c| c > scheme && c < anchor.start)
    {
        scheme = cut;
    }
    if scheme == anchor.start || !b[scheme].is_ascii_alphabetic() {
        return None;
    }
    let authority_end = run_end(b, anchor.end, |c| {
        !c.is_ascii_whitespace()
            && !matches!(c, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'`')
    });
    let authority = &b[anchor.end..authority_end];
    let at = anchor.end + authority.iter().rposition(|&c| c == b'@')?;
    let colon = anchor.end + b[anchor.end..at].iter().position(|&c| c == b':')?;
    let password = colon + 1..at;
    let has_host = at + 1 < authority_end;
    (has_host && !password.is_empty() && !is_placeholder(&scan.text[password.clone()]))
        .then_some(password)
}

fn secret_assignment_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    secret_assignment(scan, anchor).map(|assignment| assignment.value)
}

/// Longer runs of key characters are not keys (and are not scanned further).
const MAX_KEY_LEN: usize = 128;

/// A key naming a secret, and the value assigned to it.
struct Assignment {
    key: Range<usize>,
    value: Range<usize>,
}

/// How an assignment's value is delimited.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ValueForm {
    /// `KEY=value`, `"key": value`: up to whitespace or punctuation.
    Word { spaced_equals: bool },
    /// `key: value` at the start of a line (YAML, headers): the rest of the line.
    RestOfLine,
    /// `key: value` mid-line, which prose also writes: only a value that looks made up.
    Prose,
}

/// Reads `KEY=value`, `KEY = value` or `key: value` around `word`, one of
/// [`SECRET_WORDS`] found in the folded text (see the module docs for the rules).
fn secret_assignment(scan: &Scan<'_>, word: Range<usize>) -> Option<Assignment> {
    let b = scan.bytes;
    // The word must end the key or one of its parts: not `max_tokens`, `tokenizer`.
    if let Some(&next) = b.get(word.end) {
        let camel = b[word.end - 1].is_ascii_lowercase() && next.is_ascii_uppercase();
        if next.is_ascii_alphabetic() && !camel {
            return None;
        }
    }
    let key = bounded_run_start(b, word.start, MAX_KEY_LEN, is_key_byte)
        ..bounded_run_end(b, word.end, MAX_KEY_LEN, is_key_byte);
    if key.len() > MAX_KEY_LEN {
        return None;
    }
    if key.end > word.end
        && METADATA_WORDS.contains(&last_key_word(&scan.text[key.clone()]).as_str())
    {
        return None;
    }

    let mut i = key.end;
    let key_quote = match (key.start.checked_sub(1).map(|q| b[q]), b.get(i)) {
        (Some(open @ (b'"' | b'\'')), Some(&close)) if open == close => {
            i += 1;
            true
        }
        _ => false,
    };
    let sep = skip_blanks(b, i);
    let after = b.get(sep + 1).copied();
    let form = match b.get(sep) {
        Some(b'=') if !matches!(after, Some(b'=' | b'>' | b'~')) => ValueForm::Word {
            spaced_equals: sep > i,
        },
        Some(b':') if matches!(after, Some(b' ' | b'\t')) || (key_quote && after != Some(b':')) => {
            let opener = key.start - usize::from(key_quote);
            let indent = bounded_run_start(b, opener, MAX_KEY_LEN, |c| {
                matches!(c, b' ' | b'\t' | b'-' | b'*' | b'>' | b'#')
            });
            let leads_line = indent == 0 || b[indent - 1] == b'\n';
            if key_quote {
                ValueForm::Word {
                    spaced_equals: false,
                }
            } else if leads_line {
                ValueForm::RestOfLine
            } else {
                ValueForm::Prose
            }
        }
        _ => return None,
    };

    let start = skip_blanks(b, sep + 1);
    let first = *b.get(start)?;
    if first == b'\n' || starts_with_placeholder(&b[start..]) {
        return None;
    }
    let value = match (first, form) {
        (q @ (b'"' | b'\''), _) => {
            start + 1..closing_quote(b, start + 1, q).unwrap_or_else(|| line_end(b, start))
        }
        (_, ValueForm::RestOfLine) => {
            let line = &scan.text[start..line_end(b, start)];
            let value = line.find(" #").map_or(line, |comment| &line[..comment]);
            start..start + value.trim_end().len()
        }
        (_, ValueForm::Word { spaced_equals }) => {
            let end = run_end(b, start, |c| !is_value_end(c));
            let next = b.get(end).copied();
            let is_code =
                matches!(next, Some(b'(' | b'[' | b'{')) || (spaced_equals && next == Some(b';'));
            if is_code {
                // A removed control inside or after the run separates the value from the
                // call it seems to continue into: the value up to it is the secret.
                let cut = scan.cut_within(start, end.saturating_add(1).min(b.len() + 1))?;
                start..cut
            } else {
                start..end
            }
        }
        (_, ValueForm::Prose) => {
            let end = run_end(b, start, |c| !is_value_end(c));
            let run = &b[start..end];
            let made_up = run.len() >= 6
                && run.iter().any(u8::is_ascii_alphabetic)
                && run.iter().any(u8::is_ascii_digit);
            if !made_up {
                return None;
            }
            start..end
        }
    };
    (!is_placeholder(&scan.text[value.clone()])).then_some(Assignment { key, value })
}

/// The last word of `key`, lower-cased: keys split at `_`, `-`, `.` and where lower case
/// turns upper (`tokenTtl` ends in `ttl`).
fn last_key_word(key: &str) -> String {
    let part = key.rsplit(['_', '-', '.']).next().unwrap_or(key);
    let b = part.as_bytes();
    let start = (1..b.len())
        .rev()
        .find(|&i| b[i].is_ascii_uppercase() && b[i - 1].is_ascii_lowercase())
        .unwrap_or(0);
    part[start..].to_ascii_lowercase()
}

/// `[redacted: <shape>]` at the start of `b`: its length.
fn marker_len(b: &[u8]) -> Option<usize> {
    let rest = b.strip_prefix(b"[redacted: ")?;
    let name = run_end(rest, 0, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'
    });
    (name > 0 && rest.get(name) == Some(&b']')).then_some(b"[redacted: ".len() + name + 1)
}

/// A value that opens with a placeholder (`<...>`, `${...}`, `{{...}}`, a marker) closed
/// on the same line.
fn starts_with_placeholder(rest: &[u8]) -> bool {
    let closes = |open: &[u8], close: &[u8]| {
        rest.starts_with(open)
            && rest[open.len()..line_end(rest, 0)]
                .windows(close.len())
                .any(|window| window == close)
    };
    marker_len(rest).is_some() || closes(b"<", b">") || closes(b"${", b"}") || closes(b"{{", b"}}")
}

/// True for a whole value that stands where a secret would go (module docs).
fn is_placeholder(value: &str) -> bool {
    let is_identifier = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let lower = value.to_ascii_lowercase();
    value.is_empty()
        || marker_len(value.as_bytes()) == Some(value.len())
        || (value.starts_with('<') && value.ends_with('>'))
        || (value.starts_with("${") && value.ends_with('}'))
        || (value.starts_with("{{") && value.ends_with("}}"))
        || value.strip_prefix('$').is_some_and(is_identifier)
        || value
            .strip_prefix('%')
            .and_then(|v| v.strip_suffix('%'))
            .is_some_and(is_identifier)
        || value
            .chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'))
        || lower == "your"
        || lower.starts_with("your_")
        || lower.starts_with("your-")
        || lower.starts_with("your ")
        || PLACEHOLDER_WORDS.contains(&lower.as_str())
}

/// True when `run` mixes at least two of: digits, lower-case letters, and upper-case
/// letters that follow a letter or digit (a capitalised word is not mixed case).
fn looks_generated(run: &[u8]) -> bool {
    let mut digit = false;
    let mut lower = false;
    let mut upper = false;
    for (i, &c) in run.iter().enumerate() {
        digit |= c.is_ascii_digit();
        lower |= c.is_ascii_lowercase();
        upper |= c.is_ascii_uppercase() && i > 0 && run[i - 1].is_ascii_alphanumeric();
    }
    u8::from(digit) + u8::from(lower) + u8::from(upper) >= 2
}

// ---------------------------------------------------------------------------------------
// Byte classes and scanning.

fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_upper_alnum(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

fn is_alnum_dash(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

fn is_base64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

fn is_base64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')
}

fn is_url_path(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-')
}

fn is_bearer_token(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
}

fn is_armor_label(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
}

fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// Bytes that end an unquoted value.
fn is_value_end(c: u8) -> bool {
    c.is_ascii_whitespace()
        || matches!(
            c,
            b'"' | b'\''
                | b'`'
                | b','
                | b';'
                | b'&'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'<'
                | b'>'
        )
}

fn starts_inside_word(b: &[u8], start: usize) -> bool {
    start > 0 && is_word(b[start - 1])
}

fn run_end(b: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    from + b[from..].iter().take_while(|&&c| class(c)).count()
}

/// Like [`run_end`], but looks at no more than `max + 1` bytes, so a caller that refuses
/// runs longer than `max` does not pay for them.
fn bounded_run_end(b: &[u8], from: usize, max: usize, class: impl Fn(u8) -> bool) -> usize {
    let limit = max.saturating_add(1);
    from + b[from..]
        .iter()
        .take(limit)
        .take_while(|&&c| class(c))
        .count()
}

fn run_start(b: &[u8], to: usize, class: impl Fn(u8) -> bool) -> usize {
    bounded_run_start(b, to, usize::MAX, class)
}

fn bounded_run_start(b: &[u8], to: usize, max: usize, class: impl Fn(u8) -> bool) -> usize {
    let limit = max.saturating_add(1);
    to - b[..to]
        .iter()
        .rev()
        .take(limit)
        .take_while(|&&c| class(c))
        .count()
}

fn skip_blanks(b: &[u8], from: usize) -> usize {
    run_end(b, from, |c| c == b' ' || c == b'\t')
}

fn skip_whitespace(b: &[u8], from: usize) -> usize {
    run_end(b, from, |c| c.is_ascii_whitespace())
}

fn line_end(b: &[u8], at: usize) -> usize {
    b[at..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |i| at + i)
}

fn find(text: &str, from: usize, needle: &str) -> Option<usize> {
    text[from..].find(needle).map(|i| from + i)
}

/// The offset of the quote `q` closing a string that starts at `from`, skipping
/// backslash escapes, on the same line.
fn closing_quote(b: &[u8], from: usize, q: u8) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            c if c == q => return Some(i),
            _ => i += 1,
        }
    }
    None
}

// ---------------------------------------------------------------------------------------
// Terminal control characters.

/// `text` without terminal control characters, and whether it had any.
fn strip_controls(text: &str) -> (Cow<'_, str>, Option<Vec<usize>>) {
    if !text.chars().any(is_control) {
        return (Cow::Borrowed(text), None);
    }
    let mut out = String::with_capacity(text.len());
    // Where something was removed, once per place.
    let mut cuts: Vec<usize> = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_control_string(&mut chars),
            c if is_control(c) => {}
            c => {
                out.push(c);
                continue;
            }
        }
        if cuts.last() != Some(&out.len()) {
            cuts.push(out.len());
        }
    }
    (Cow::Owned(out), Some(cuts))
}

/// C0 except `\n` and `\t`, DEL, C1.
fn is_control(c: char) -> bool {
    (c < ' ' && c != '\n' && c != '\t') || ('\x7f'..='\u{9f}').contains(&c)
}

/// Skips what follows an ESC: a CSI, a string sequence (OSC, DCS, SOS, PM, APC), or an
/// escape with intermediates and a final byte.
fn skip_escape(chars: &mut std::str::Chars<'_>) {
    match chars.clone().next() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_control_string(chars);
        }
        Some('\x20'..='\x2f') => {
            while matches!(chars.clone().next(), Some('\x20'..='\x2f')) {
                chars.next();
            }
            if matches!(chars.clone().next(), Some('\x30'..='\x7e')) {
                chars.next();
            }
        }
        Some('\x30'..='\x7e') => {
            chars.next();
        }
        _ => {}
    }
}

/// Skips a CSI's parameters, intermediates and final byte.
fn skip_csi(chars: &mut std::str::Chars<'_>) {
    while matches!(chars.clone().next(), Some('\x30'..='\x3f')) {
        chars.next();
    }
    while matches!(chars.clone().next(), Some('\x20'..='\x2f')) {
        chars.next();
    }
    if matches!(chars.clone().next(), Some('\x40'..='\x7e')) {
        chars.next();
    }
}

/// Skips a string sequence's payload through its terminator (BEL, `ESC \` or ST) on the
/// same line. Unterminated, only the introducer goes: its payload stays as plain text
/// rather than swallowing the rest of the record.
fn skip_control_string(chars: &mut std::str::Chars<'_>) {
    let mut ahead = chars.clone();
    while let Some(c) = ahead.next() {
        match c {
            '\x07' | '\u{9c}' => {
                *chars = ahead;
                return;
            }
            '\x1b' if ahead.clone().next() == Some('\\') => {
                ahead.next();
                *chars = ahead;
                return;
            }
            '\n' => return,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const ALPHA: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const BASE64: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";
    const BASE64URL: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    const HEX: &str = "0123456789abcdef";
    const DIGITS: &str = "0123456789";

    /// Deterministic characters from `alphabet`: fake secrets that look generated, built
    /// at run time so no secret-shaped literal sits in the source.
    fn noise(alphabet: &str, len: usize, seed: u64) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                chars[(state >> 33) as usize % chars.len()]
            })
            .collect()
    }

    fn pem(label: &str, seed: u64) -> String {
        let body: Vec<String> = (0..4).map(|i| noise(BASE64, 64, seed + i)).collect();
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----",
            body.join("\n")
        )
    }

    /// (shape, text carrying it, the secret that must not survive)
    fn secrets() -> Vec<(&'static str, String, String)> {
        let mut corpus = Vec::new();
        let mut add = |shape: &'static str, secret: String, text: &dyn Fn(&str) -> String| {
            corpus.push((shape, text(&secret), secret));
        };

        add(
            "aws-access-key-id",
            format!("AKIA{}", noise(UPPER_ALNUM, 16, 1)),
            &|s| format!("aws configure set aws_access_key_id {s}"),
        );
        add(
            "aws-access-key-id",
            format!("ASIA{}", noise(UPPER_ALNUM, 16, 2)),
            &|s| format!("{{\"AccessKeyId\": \"{s}\", \"Expiration\": \"2026-11-30\"}}"),
        );
        add("aws-secret-access-key", noise(BASE64, 40, 3), &|s| {
            format!("[default]\naws_secret_access_key = {s}\nregion = eu-west-1")
        });
        add("aws-secret-access-key", noise(BASE64, 40, 4), &|s| {
            format!("export AWS_SECRET_ACCESS_KEY={s}")
        });
        add(
            "google-api-key",
            format!("AIza{}", noise(BASE64URL, 35, 5)),
            &|s| format!("curl 'https://maps.googleapis.com/maps/api/geocode/json?key={s}'"),
        );
        add(
            "gcp-service-account-key",
            format!("{}\\n", pem("PRIVATE KEY", 6).replace('\n', "\\n")),
            &|s| {
                format!(
                    "{{\n  \"type\": \"service_account\",\n  \"private_key_id\": \"4f2a\",\n  \
                     \"private_key\": \"{s}\",\n  \"client_email\": \"ci@acme.iam.gserviceaccount.com\"\n}}"
                )
            },
        );
        add(
            "azure-account-key",
            format!("{}==", noise(BASE64, 86, 7)),
            &|s| {
                format!(
                    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net"
                )
            },
        );
        add(
            "github-token",
            format!("ghp_{}", noise(ALNUM, 36, 8)),
            &|s| format!("GH_TOKEN={s}"),
        );
        add(
            "github-token",
            format!("ghs_{}", noise(ALNUM, 36, 9)),
            &|s| {
                format!(
                    "git remote set-url origin https://x-access-token:{s}@github.com/acme/app.git"
                )
            },
        );
        add(
            "github-token",
            format!(
                "github_pat_{}_{}",
                noise(ALNUM, 22, 10),
                noise(ALNUM, 59, 11)
            ),
            &|s| format!("use {s} for the release job"),
        );
        add(
            "gitlab-token",
            format!("glpat-{}", noise(BASE64URL, 20, 12)),
            &|s| format!("PRIVATE-TOKEN: {s}"),
        );
        add(
            "slack-token",
            format!(
                "xoxb-{}-{}-{}",
                noise(DIGITS, 12, 13),
                noise(DIGITS, 13, 14),
                noise(ALNUM, 24, 15)
            ),
            &|s| format!("the bot posts with {s} into #deploys"),
        );
        add(
            "slack-webhook",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                noise(UPPER_ALNUM, 8, 16),
                noise(UPPER_ALNUM, 8, 17),
                noise(ALNUM, 24, 18)
            ),
            &|s| format!("alerts go to {s}."),
        );
        add(
            "stripe-key",
            format!("sk_live_{}", noise(ALNUM, 24, 19)),
            &|s| format!("Stripe::api_key = \"{s}\""),
        );
        add(
            "stripe-key",
            format!("rk_live_{}", noise(ALNUM, 24, 20)),
            &|s| format!("restricted key {s}"),
        );
        add(
            "stripe-key",
            format!("sk_test_{}", noise(ALNUM, 24, 21)),
            &|s| format!("test mode: {s}"),
        );
        add(
            "openai-key",
            format!("sk-proj-{}", noise(BASE64URL, 80, 22)),
            &|s| format!("client = OpenAI(api_key=\"{s}\")"),
        );
        add("openai-key", format!("sk-{}", noise(ALNUM, 48, 23)), &|s| {
            format!("old key {s} revoked")
        });
        add(
            "anthropic-key",
            format!("sk-ant-api03-{}AA", noise(BASE64URL, 93, 24)),
            &|s| format!("x-api-key: {s}"),
        );
        add("npm-token", format!("npm_{}", noise(ALNUM, 36, 25)), &|s| {
            format!("//registry.npmjs.org/:_authToken={s}")
        });
        add(
            "pypi-token",
            format!("pypi-AgEIcHlwaS5vcmc{}", noise(BASE64URL, 70, 26)),
            &|s| format!("[pypi]\nusername = __token__\npassword = {s}"),
        );
        add(
            "huggingface-token",
            format!("hf_{}", noise(ALPHA, 34, 27)),
            &|s| format!("huggingface-cli login --token {s}"),
        );
        add(
            "sendgrid-key",
            format!(
                "SG.{}.{}",
                noise(BASE64URL, 22, 28),
                noise(BASE64URL, 43, 29)
            ),
            &|s| format!("mail via {s}"),
        );
        add("twilio-key", format!("SK{}", noise(HEX, 32, 30)), &|s| {
            format!("twilio api key {s} (sid)")
        });
        add(
            "digitalocean-token",
            format!("dop_v1_{}", noise(HEX, 64, 31)),
            &|s| format!("doctl auth init -t {s}"),
        );
        add(
            "shopify-token",
            format!("shpat_{}", noise(HEX, 32, 32)),
            &|s| format!("X-Shopify-Access-Token: {s}"),
        );
        add(
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.{}",
                noise(BASE64URL, 43, 33)
            ),
            &|s| format!("session cookie: {s}; Path=/"),
        );
        add("private-key", pem("RSA PRIVATE KEY", 34), &|s| {
            format!("deploy key:\n{s}\nend of paste")
        });
        add("private-key", pem("OPENSSH PRIVATE KEY", 35), &|s| {
            s.to_owned()
        });
        add("private-key", pem("PGP PRIVATE KEY BLOCK", 36), &|s| {
            format!("> {s}")
        });
        add(
            "private-key",
            format!("-----BEGIN EC PRIVATE KEY-----\n{}", noise(BASE64, 64, 37)),
            &|s| format!("truncated paste: {s}"),
        );
        add("bearer-token", noise(ALNUM, 40, 38), &|s| {
            format!("curl -H 'Authorization: Bearer {s}' https://api.example.com/v1")
        });
        add("bearer-token", noise(BASE64URL, 32, 39), &|s| {
            format!("the client sends Bearer {s} on every call")
        });
        add("basic-auth", format!("{}==", noise(BASE64, 22, 40)), &|s| {
            format!("{{\"headers\": {{\"Authorization\": \"Basic {s}\"}}}}")
        });
        add(
            "url-password",
            format!("s3cr3t-{}", noise(ALNUM, 12, 41)),
            &|s| format!("DATABASE_URL=postgres://ada:{s}@db.internal:5432/app"),
        );
        add("url-password", noise(ALNUM, 20, 42), &|s| {
            format!("cache at redis://:{s}@cache:6379/0")
        });
        add(
            "secret-assignment",
            format!("Tr0ub4dor-{}", noise(ALNUM, 8, 43)),
            &|s| format!("DB_PASSWORD={s}"),
        );
        add("secret-assignment", noise(HEX, 32, 44), &|s| {
            format!("service:\n  api_key: {s}\n  region: eu")
        });
        add("secret-assignment", noise(ALNUM, 24, 45), &|s| {
            format!("{{\"client_id\": \"app\", \"client_secret\": \"{s}\"}}")
        });
        add(
            "secret-assignment",
            "correct horse battery staple".to_owned(),
            &|s| format!("[db]\npassword = \"{s}\""),
        );
        add("secret-assignment", noise(ALNUM, 16, 46), &|s| {
            format!("export GITHUB_TOKEN={s}")
        });
        add("secret-assignment", "hunter22x".to_owned(), &|s| {
            format!("we set the staging password: {s} for now")
        });
        add("secret-assignment", noise(ALNUM, 16, 47), &|s| {
            format!("const config = {{ accessToken: '{s}' }}")
        });
        add("secret-assignment", noise(ALNUM, 16, 48), &|s| {
            format!("spring.datasource.password={s}")
        });
        add("secret-assignment", noise(ALNUM, 16, 49), &|s| {
            format!("mysql -u root --password={s} app")
        });
        add("secret-assignment", "open sesame 42".to_owned(), &|s| {
            format!("Password: {s}")
        });
        add("control-characters", "\x1b".to_owned(), &|s| {
            format!("{s}[31mbuild failed{s}[0m")
        });
        corpus
    }

    const CLEAN: &[&str] = &[
        "1f0c3e2a9b8d7c6e5f4a3b2c1d0e9f8a7b6c5d4e",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "fixed in 1f0c3e2a9b8d, see 9a8b7c6d5e4f",
        "550e8400-e29b-41d4-a716-446655440000",
        "20261130T101500Z-1a2b3c",
        "q-1a2b3c4d5e",
        "t-20261130-1a2b",
        "the password field is hashed",
        "rotate the token weekly",
        "Keep the secret out of logs; the API key lives in the vault.",
        "Set the token: see the vault runbook.",
        "the password: we hash it with argon2",
        "Bearer tokens are rotated weekly by the gateway.",
        "the bearer of this letter",
        "update the task-list and disk-usage panels",
        "let token = lexer.next();",
        "let token = other;",
        "if token == other { return; }",
        "fn parse(token: &Token) -> Result<Ast, Error>",
        "self.token = token",
        "let data = base64::decode(\"aGVsbG8gd29ybGQ=\")?;",
        "const LOGO: &str = \"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\";",
        "https://user@host/path",
        "https://example.com/a:b",
        "ssh://git@github.com:22/acme/app.git and git@github.com:acme/app.git",
        "https://user:<password>@host/db",
        "postgres://app:${DB_PASSWORD}@db/app",
        "max_tokens=4096",
        "TOKEN_TTL=3600",
        "PASSWORD_FILE=/run/secrets/db",
        "MIN_PASSWORD_LENGTH=12",
        "tokenizer=bpe",
        "passwordless: true",
        "API_KEY=<your key>",
        "PASSWORD=",
        "password: changeme",
        "SECRET=${SECRET}",
        "TOKEN=$TOKEN",
        "api_token: your-token-here",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "Authorization: Bearer <token>",
        "Authorization: Bearer $TOKEN",
        "Regional offices in ASIA and EMEA",
        "See https://docs.example.com/auth#tokens",
        "Heslo se ukládá jako hash; the password field is hashed 🙂",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
        "password: \"${DB_PASSWORD}\"",
        "token = None",
        "tabs\tand\nnewlines\nstay",
    ];

    #[test]
    fn every_corpus_secret_is_found_and_removed() {
        for (shape, text, secret) in secrets() {
            let redacted = redact(&text);
            assert!(
                redacted.shapes.contains(&shape),
                "{shape} missed in {text:?}: {redacted:?}"
            );
            assert!(
                !redacted.text.contains(&secret),
                "{shape} survived: {redacted:?}"
            );
            let marked = redacted.text.contains(&format!("[redacted: {shape}]"));
            assert!(marked || shape == "control-characters", "{redacted:?}");
        }
    }

    #[test]
    fn one_pass_over_every_anchor_finds_what_a_search_per_anchor_finds() {
        let mut texts: Vec<String> = secrets().into_iter().map(|(_, text, _)| text).collect();
        texts.extend(CLEAN.iter().map(|t| (*t).to_owned()));
        // Everything at once, and anchors repeated, overlapping and run together.
        texts.push(texts.join("\n"));
        texts.push(texts.join(" "));
        for overlapping in [
            "AKIAKIAKIA".repeat(8),
            "sk-sk-sk-ant-sk-".repeat(4),
            "secretsecret=secret token=tokentoken password:passwordpassword".to_owned(),
            "authorization: Bearer bearer bearer authorization".repeat(3),
            "://://:// https://user:pw@host/ http://a:b@c".to_owned(),
            "credentialscredentials=abc123DEF456ghi789".to_owned(),
        ] {
            texts.push(overlapping.clone());
            texts.push(overlapping.to_uppercase());
        }
        for text in &texts {
            assert_eq!(
                secret_hits(text, &[]),
                secret_hits_per_anchor(text, &[]),
                "in {text:?}"
            );
            // With a control character removed before and inside each word (its cut
            // read both ways), the two searches still agree.
            let spiked: String = text.replace(' ', " \x07").replace('=', "=\x07");
            let (clean, cuts) = strip_controls(&spiked);
            let cuts = cuts.unwrap_or_default();
            assert_eq!(
                secret_hits(&clean, &cuts),
                secret_hits_per_anchor(&clean, &cuts),
                "in {spiked:?}"
            );
        }
    }

    #[test]
    fn the_corpus_covers_every_shape() {
        let corpus = secrets();
        for name in SHAPES {
            assert!(
                corpus.iter().any(|(shape, ..)| shape == name),
                "{name} has no example"
            );
        }
    }

    #[test]
    fn clean_text_is_unchanged() {
        for text in CLEAN {
            let redacted = redact(text);
            assert_eq!(redacted.text, *text);
            assert!(
                redacted.is_clean(),
                "false positive in {text:?}: {:?}",
                redacted.shapes
            );
        }
    }

    #[test]
    fn redaction_is_idempotent_and_leaves_nothing_to_find() {
        let texts = secrets().into_iter().map(|(_, text, _)| text);
        for text in texts.chain(CLEAN.iter().map(|t| (*t).to_owned())) {
            let once = redact(&text);
            let twice = redact(&once.text);
            assert_eq!(twice.text, once.text);
            assert!(
                twice.is_clean(),
                "{:?} still carries {:?}",
                once.text,
                twice.shapes
            );
            assert_eq!(find_shapes(&text), once.shapes);
        }
    }

    #[test]
    fn only_the_secret_part_is_replaced() {
        let value = format!("Tr0ub4dor-{}", noise(ALNUM, 8, 50));
        let token = noise(ALNUM, 40, 51);
        let cases = [
            (
                format!("DB_PASSWORD={value}"),
                "DB_PASSWORD=[redacted: secret-assignment]",
            ),
            (
                format!("https://ada:{value}@example.com/x"),
                "https://ada:[redacted: url-password]@example.com/x",
            ),
            (
                format!("Authorization: Bearer {token}"),
                "Authorization: Bearer [redacted: bearer-token]",
            ),
            (
                format!("\"password\": \"{value}\","),
                "\"password\": \"[redacted: secret-assignment]\",",
            ),
            (
                format!("password: {value} # rotated monthly"),
                "password: [redacted: secret-assignment] # rotated monthly",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(redact(&text).text, expected);
        }
    }

    #[test]
    fn long_runs_of_anchors_are_read_in_bounded_steps() {
        // Runs of key characters and token bodies are bounded, so this stays linear.
        let long = "token_".repeat(5_000) + "=x " + &"sk-".repeat(5_000);
        let redacted = redact(&long);
        assert_eq!(redacted.text, long);
        let records = "API_TOKEN=abc123 and more prose\n".repeat(1_000);
        assert_eq!(redact(&records).shapes, ["secret-assignment"]);
    }

    #[test]
    fn the_more_specific_shape_names_the_marker() {
        let token = format!("ghs_{}", noise(ALNUM, 36, 52));
        let text = format!("https://x-access-token:{token}@github.com/acme/app.git");
        let redacted = redact(&text);
        assert_eq!(
            redacted.text,
            "https://x-access-token:[redacted: github-token]@github.com/acme/app.git"
        );
        assert_eq!(redacted.shapes, ["github-token"]);
    }

    #[test]
    fn a_private_key_block_goes_whole_even_unterminated() {
        let block = pem("RSA PRIVATE KEY", 53);
        let redacted = redact(&format!("before\n{block}\nafter"));
        assert_eq!(redacted.text, "before\n[redacted: private-key]\nafter");

        let open = format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{}",
            noise(BASE64, 70, 54)
        );
        let redacted = redact(&format!("paste:\n{open}\nand more"));
        assert_eq!(redacted.text, "paste:\n[redacted: private-key]");
    }

    #[test]
    fn several_secrets_in_one_string_are_all_reported() {
        let github = format!("ghp_{}", noise(ALNUM, 36, 55));
        let aws = format!("AKIA{}", noise(UPPER_ALNUM, 16, 56));
        let text = format!(
            "\x1b[1mci:\x1b[0m token {github}, key {aws}, db postgres://app:pw-{}@db/app",
            noise(ALNUM, 10, 57)
        );
        let redacted = redact(&text);
        assert_eq!(
            redacted.shapes,
            [
                "aws-access-key-id",
                "control-characters",
                "github-token",
                "url-password"
            ]
        );
        assert_eq!(
            redacted.text,
            "ci: token [redacted: github-token], key [redacted: aws-access-key-id], \
             db postgres://app:[redacted: url-password]@db/app"
        );
    }

    #[test]
    fn secrets_at_the_edges_of_the_text() {
        let token = format!("glpat-{}", noise(BASE64URL, 20, 58));
        assert_eq!(redact(&token).text, "[redacted: gitlab-token]");
        assert_eq!(
            redact(&format!("{token} first")).text,
            "[redacted: gitlab-token] first"
        );
        assert_eq!(
            redact(&format!("last {token}")).text,
            "last [redacted: gitlab-token]"
        );
    }

    #[test]
    fn unicode_around_secrets_survives() {
        let token = format!("hf_{}", noise(ALPHA, 34, 59));
        let text = format!("🔑 klíč: {token} — žluťoučký kůň\nDB_PASSWORD=heslo-čő42 🐴 konec");
        let redacted = redact(&text);
        assert_eq!(
            redacted.text,
            "🔑 klíč: [redacted: huggingface-token] — žluťoučký kůň\n\
             DB_PASSWORD=[redacted: secret-assignment] 🐴 konec"
        );
    }

    #[test]
    fn terminal_control_characters_are_removed() {
        let cases = [
            ("\x1b[1;31mred\x1b[0m plain", "red plain"),
            ("\x1b]0;window title\x07after", "after"),
            (
                "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
                "link",
            ),
            ("line one\r\nline two\r\n", "line one\nline two\n"),
            ("nul\0bell\x07back\x08del\x7f", "nulbellbackdel"),
            ("c1 \u{9b}2Jcsi and \u{85}next line", "c1 csi and next line"),
            ("charset \x1b(Bswitch \x1b7saved", "charset switch saved"),
            (
                "unterminated \x1b]0;title\nnext",
                "unterminated 0;title\nnext",
            ),
            ("lone escape at the end \x1b", "lone escape at the end "),
        ];
        for (text, expected) in cases {
            let redacted = redact(text);
            assert_eq!(redacted.text, expected, "{text:?}");
            assert_eq!(redacted.shapes, ["control-characters"]);
        }
        assert!(redact("tab\tand\nnewline").is_clean());
    }

    #[test]
    fn an_escape_sequence_cannot_hide_a_token() {
        let body = noise(ALNUM, 36, 60);
        let text = format!("gh\x1b[0mp_{body}");
        let redacted = redact(&text);
        assert_eq!(redacted.text, "[redacted: github-token]");
        assert_eq!(redacted.shapes, ["control-characters", "github-token"]);
    }

    #[test]
    fn shape_names_are_unique_kebab_case_and_each_has_a_rule() {
        let mut names = SHAPES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SHAPES.len());
        for (i, shape) in Shape::ALL.iter().enumerate() {
            assert_eq!(
                *shape as usize, i,
                "Shape::ALL follows the declaration order"
            );
            let name = shape.name();
            assert!(
                name.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'),
                "{name}"
            );
            let has_rule = RULES.iter().any(|rule| rule.shape == *shape);
            assert!(
                has_rule || *shape == Shape::ControlCharacters,
                "{name} has no rule"
            );
        }
    }

    /// The anchors are the prefilter: a shape's matcher runs only where one occurs. A
    /// folded anchor with an upper-case letter would never occur in the lower-cased text
    /// and its shape would silently never be found.
    #[test]
    fn folded_anchors_are_lower_case() {
        for rule in RULES {
            assert!(!rule.anchors.is_empty(), "{}", rule.shape.name());
            if let Case::Folded = rule.case {
                for anchor in rule.anchors {
                    assert_eq!(
                        *anchor,
                        anchor.to_ascii_lowercase(),
                        "{}",
                        rule.shape.name()
                    );
                }
            }
        }
    }

    #[test]
    fn redacted_serializes_text_and_shapes() {
        let json = serde_json::to_value(redact("a\x07b")).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({ "text": "ab", "shapes": ["control-characters"] })
        );
    }
}
