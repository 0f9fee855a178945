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
//! No regex: each shape is anchored on a literal (`ghp_`, `AKIA`, `://`, `-----BEGIN `,
//! `password`, ...), and the shape's matcher runs only where its anchor occurs. A short
//! text ([`redact`], [`find_shapes`]: a commit subject in a hook) is searched anchor by
//! anchor, with no set-up. A caller that scans many texts ([`find_shapes_bulk`]: `knowledge
//! check`, pre-push) uses Aho-Corasick automata built once per process: a plain pass says
//! whether a text holds any anchor at all (most hold none, and that is all they cost),
//! and only then one overlapping pass dispatches each anchor to its rules.
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

mod bytes;
mod controls;
mod matchers;
#[cfg(test)]
mod tests;

use bytes::*;
use controls::*;
use matchers::*;

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

/// [`find_shapes`] for a caller that scans many texts (`knowledge check` reads every
/// record of the store; pre-push every pushed file): whatever a text's length it is
/// searched in one pass of the two automata, built once per process, which pays for
/// itself after a few texts. [`find_shapes`] keeps a lone short text (a hook's commit
/// subject) off the automata's set-up. Always equal to `find_shapes(text)`.
pub fn find_shapes_bulk(text: &str) -> Vec<&'static str> {
    let (clean, cuts) = strip_controls(text);
    shape_names(
        &secret_hits_automaton(&clean, cuts.as_deref().unwrap_or_default()),
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
    /// The same anchors, leftmost-first: whether a text (its lower-cased copy for the
    /// case-insensitive ones) holds any anchor at all, in plain searches that skip ahead.
    /// Most text holds none, and then nothing else runs.
    folded_any: AhoCorasick,
    exact_any: AhoCorasick,
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
        // A DFA: a few dozen short literals make a small one, and it is the fastest to
        // run over the whole store's text.
        let build = |patterns: &[&str]| {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(patterns)
                .expect("the anchors are a handful of short literals")
        };
        // Leftmost-first: the searches that only say whether there is a match may use
        // the packed (SIMD) searcher, which the overlapping search cannot.
        let any = |patterns: &[&str]| {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(patterns)
                .expect("the anchors are a handful of short literals")
        };
        Anchors {
            folded_any: any(&folded),
            exact_any: any(&exact),
            exact: build(&exact),
            folded: build(&folded),
            exact_rules,
            folded_rules,
        }
    })
}

/// Below this length a search per anchor is cheaper than building the automaton, which
/// costs about half a million instructions once per process: a hook redacting one commit
/// subject would pay it on every commit.
const AUTOMATON_FROM: usize = 4096;

/// Every secret span of `text`, sorted, overlapping matches merged: the same hits either
/// way (a test holds the two searches equal).
fn secret_hits(text: &str, cuts: &[usize]) -> Vec<Hit> {
    if text.len() < AUTOMATON_FROM {
        secret_hits_per_anchor(text, cuts)
    } else {
        secret_hits_automaton(text, cuts)
    }
}

/// One pass over every anchor with two Aho-Corasick automata (built once per process),
/// after a cheaper pass that says whether the text holds an anchor at all.
fn secret_hits_automaton(text: &str, cuts: &[usize]) -> Vec<Hit> {
    let anchors = anchors();
    // No anchor, no shape: every rule is found from one of its anchors. The lower-cased
    // copy is searched for the case-insensitive ones (a plain search of lower-case
    // literals, which the packed searcher runs far faster than a case-folding one).
    let folded = text.to_ascii_lowercase();
    if !anchors.exact_any.is_match(text) && !anchors.folded_any.is_match(&folded) {
        return Vec::new();
    }
    let scan = Scan {
        text,
        bytes: text.as_bytes(),
        folded,
        cuts,
    };
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

/// One `match_indices` per anchor: no automaton to build, for short texts; and the
/// reference the automaton is held to.
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
